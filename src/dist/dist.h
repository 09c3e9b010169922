/* dist.h - blocklab on several processes with MPI (issue 18; Open MPI or MPICH, MPI-3 calls only).
 *
 * Started by a launcher (mpirun -np N blocklab -f script.bl, srun blocklab ...; its environment
 * says so) or with blocklab --mpi, the program is one REPL over N ranks:
 *   - rank 0 reads the script or the prompt and sends each top-level statement to the others,
 *     which run it too (dist_repl.c); only rank 0 prints and publishes files (the others write
 *     into nothing, bl_fileio_discard);
 *   - `compare` trains run i on rank i % N (round-robin among a rank's own runs), rank 0
 *     gathers every run's numbers, prints the one table and writes the files (dist_compare.c);
 *   - `train` splits the global batch over the ranks and averages the gradients with one
 *     MPI_Iallreduce of one flat buffer per step (dist_train.c).
 * Without MPI (a build without HAVE_MPI, or a program not started by a launcher) every function
 * here is the one-process case: rank 0 of 1, nothing sent.
 *
 * No wait is without end while another rank owes an answer: receives poll (MPI_Iprobe /
 * MPI_Test) against a deadline, BLOCKLAB_MPI_TIMEOUT seconds (default 120, and at least ten times
 * the longest gap seen between a rank's messages); a rank that stays silent past it is reported
 * dead by rank and host and left out from then on. Rank 0 says "alive" to the others while it
 * works or waits (also for the next line of standard input); a rank > 0 that hears nothing from
 * rank 0 for the timeout while it waits ends the job with one line and MPI_Abort, since nobody
 * would read its results. Errors: -1 + bl_error().
 */
#ifndef BL_DIST_H
#define BL_DIST_H

#include <stddef.h>
#include <stdio.h>

/* MPI_Init when a launcher started the program (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK or
 * SLURM_STEP_ID with PMI) or force (--mpi), then the ranks' host names. 0; -1 + error when force
 * and this build has no MPI, or MPI_Init fails; -2 when BLOCKLAB_MPI_TIMEOUT is bad (rank 0 has
 * printed the one-line error, every rank has called MPI_Finalize). */
int bl_dist_init(int *argc, char ***argv, int force);
/* MPI_Finalize (when a rank died: MPI_Abort with status rc, as MPI_Finalize may wait on it). */
void bl_dist_finalize(int rc);
int bl_dist_rank(void);                 /* 0 without MPI */
int bl_dist_size(void);                 /* 1 without MPI */
int bl_dist_on(void);                   /* MPI started (even with one rank) */
const char *bl_dist_host(int rank);     /* the rank's MPI_Get_processor_name ("" unknown) */
/* Seconds a rank may stay silent before it counts as dead (BLOCKLAB_MPI_TIMEOUT, default 120). */
double bl_dist_timeout(void);
enum { BL_DIST_TIMEOUT_MIN = 1, BL_DIST_TIMEOUT_MAX = 86400 };
/* Read BLOCKLAB_MPI_TIMEOUT (bl_dist_init does): 0, or -1 + "BLOCKLAB_MPI_TIMEOUT='X': expected
 * seconds from 1 to 86400 ..." for what is not a number of seconds in that range. */
int bl_dist_read_timeout(void);
/* Seconds on a monotonic clock. */
double bl_dist_now(void);
/* Ranks > 0: standard output and error to /dev/null (unless BLOCKLAB_MPI_VERBOSE=1); the
 * rank's own standard error is kept for bl_dist_fatal. */
void bl_dist_quiet(void);
/* The end of this rank and the job: "blocklab: rank K (HOST): MESSAGE; ending the job
 * (MPI_Abort)" on the rank's own standard error, then MPI_Abort(MPI_COMM_WORLD, 1). */
void bl_dist_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Rank 0 (main thread): tell every other rank it lives, at most every BLOCKLAB_MPI_TIMEOUT/5 s
 * (10 s at most); cheap enough for every safe point (bl_interrupted calls it). No-op elsewhere. */
void bl_dist_alive(void);
/* Called in every wait loop. Rank 0: bl_dist_alive. Ranks > 0: take rank 0's "alive" messages;
 * when rank 0 has been silent for the timeout (counted from the later of its last word and
 * `since`, the wait's start, seconds of bl_dist_now), bl_dist_fatal: rank 0 died or hangs. */
void bl_dist_watch(double since);
/* Wait for a nonblocking collective (MPI_Request *req, started at t0 = bl_dist_now()), polling
 * with bl_dist_watch, at most the timeout. 0; -1 + "not every rank joined the WHAT within N s
 * (BLOCKLAB_MPI_TIMEOUT)..." or "the WHAT failed: a rank died", and the job is marked to end
 * by MPI_Abort (bl_dist_mark_dead(-1)). The request stays pending after a timeout: no later
 * collective on MPI_COMM_WORLD may follow. */
int bl_dist_wait(void *req, double t0, const char *what);
/* bl_dist_wait for a small collective that a slower rank has yet to join: after 2 ms it tests
 * once a millisecond, sleeping between tests, so the waiting rank leaves its core (or its
 * hyperthread's sibling) to the rank it waits for, as Open MPI's mpi_yield_when_idle does for
 * blocking calls. */
int bl_dist_wait_idle(void *req, double t0, const char *what);
int bl_dist_dead(int rank);
/* Count rank as dead (rank < 0: some rank, not known which, after a collective timed out):
 * bl_dist_finalize then ends the job with MPI_Abort instead of waiting in MPI_Finalize. */
void bl_dist_mark_dead(int rank);
/* Whether some rank was marked dead (then no collective on MPI_COMM_WORLD is started again). */
int bl_dist_lost(void);
/* Whether this process publishes files: rank 0, or alone. */
int bl_dist_writer(void);

/* ---- messages between rank 0 and rank k (dist.c) ---- */
enum { BL_TAG_STMT = 11, BL_TAG_END, BL_TAG_STOP, BL_TAG_BEAT, BL_TAG_RESULT, BL_TAG_ALL, BL_TAG_ALIVE };
/* Send n bytes to rank `to` (MPI_Isend, then MPI_Test until done or the timeout: a dead rank
 * is marked). 0 or -1 + error. */
int bl_dist_send(int to, int tag, const void *buf, size_t n);
/* Whether a message with tag from rank `from` (-1: any) waits; *src gets its sender. */
int bl_dist_pending(int from, int tag, int *src);
/* Receive the message with tag from rank `from` (it must be pending, or is waited for up to
 * timeout_s seconds; <= 0 waits as long as it takes): a malloc'd, NUL-terminated buffer, *n bytes.
 * NULL + error on timeout. */
char *bl_dist_recv(int from, int tag, double timeout_s, size_t *n);
/* Sleep a little while polling (1 ms), so that a waiting rank leaves its core to others. */
void bl_dist_nap(void);

/* ---- the REPL (dist_repl.c) ---- */
struct bl_session;
/* Rank 0: send a top-level statement (name: the script's name, line: its first line) to every
 * other rank, before running it. No-op alone. */
void bl_dist_share(const char *name, const char *text, int line);
/* Rank 0: the session ended (exit status rc): the other ranks leave bl_dist_follow. */
void bl_dist_end(int rc);
/* Ranks > 0: run the statements rank 0 sends until it ends the session. Returns its status. */
int bl_dist_follow(struct bl_session *s);
/* For commands that make no sense over several ranks (dash): -1 + "CMD: not available under MPI (N ranks):
 * WHY" when running on more than one rank, else 0. */
int bl_dist_refuse(const char *cmd, const char *why);

#endif

/* ---- compare over the ranks (dist_compare.c) ---- */
struct bl_compare;
/* A comparison starts (every rank, same arguments): under more than one rank, the runs this rank
 * does not train (run i is rank i % N's) are marked remote (bl_compare_round, _finish, _save
 * and _write leave them alone). No-op alone. */
void bl_dist_compare_begin(struct bl_compare *c);
/* Before each round, on every rank. interrupted: this rank's Ctrl-C (or SIGUSR1, which mpirun
 * forwards); live: how many of its runs still train. Under more than one rank the ranks agree
 * (one MPI_Iallreduce of [stopped, training, slowest round] every few rounds, about every 0.1 s
 * of the slowest rank, at most 64 rounds apart; posted at one check and read at the next, waited
 * for there as bl_dist_wait does, so a stop takes effect one check later, about 0.2 s at most),
 * so that every run of the comparison stops after the same step whichever rank was stopped first. Returns 0 (go on), 1 (stop: some rank was interrupted) or 2 (stop: no rank has a run
 * left to train). Alone: the same from this rank's own flags. When a rank is lost (the check
 * timed out), rank 0 says so on stderr and each rank goes on with its own flags; rank 0's
 * Ctrl-C then reaches the others as a message. */
int bl_dist_compare_poll(struct bl_compare *c, int interrupted, int live);
/* Ranks > 0: "still here" during a long measurement (called between exam chunks). */
void bl_dist_compare_beat(void);
/* bl_compare_save of this rank's own runs (published by every rank: checkpoints go where
 * every rank's runs go, DIR/NAME, so a later compare resumes on any number of ranks). */
int bl_dist_compare_save(const struct bl_compare *c, const char *dir);
/* After bl_compare_finish on every rank: the others send their runs' numbers (metrics, val, fd,
 * failure) to rank 0, which sends them all back, so every rank holds the whole comparison and
 * c->done is the most rounds any rank took. A rank silent past the timeout is reported on out
 * (rank 0: "compare: rank K (HOST) died ...: its runs A, B are lost") and its runs marked failed;
 * every run that failed on another rank is reported as bl_cmd_compare reports its own
 * ("compare: NAME stopped: ..."). 0, or -1 + error (out of memory). No-op alone. */
int bl_dist_compare_gather(struct bl_compare *c, FILE *out);

/* ---- data-parallel train (dist_train.c) ---- */
struct bl_run;
/* Under more than one rank: r's global batch is split over the ranks (rank k's rows from
 * k*B/N), its gradients and loss averaged each step (bl_run's reduce hook: one MPI_Iallreduce
 * of one flat buffer [B_k/B * grads, B_k/B * loss, stop, seconds of work]), the weights compared every
 * eval_every steps by a checksum, and the exam left to rank 0. interrupted: this rank's Ctrl-C,
 * added to every step's buffer so that all ranks stop after the same step. 0 (also alone), or
 * -1 + "train: ..." when the batch has fewer rows than there are ranks. */
int bl_dist_train_attach(struct bl_run *r, int (*interrupted)(void));
void bl_dist_train_detach(struct bl_run *r);
/* Whether the last step's reduction asked every rank to stop (some rank's Ctrl-C). */
int bl_dist_train_stopped(void);
/* Seconds spent in the last step's allreduce, and in all of them since attach (bench). */
double bl_dist_train_allreduce_s(double *total);
/* Of those allreduce seconds since attach, the part this rank waited for a slower one: the sum
 * over the steps of (the slowest rank's seconds of work since the last allreduce - this rank's),
 * each rank's work riding on the gradient buffer. */
double bl_dist_train_wait_s(void);
