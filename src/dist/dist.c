/* dist.c - MPI start, ranks, hosts and the polled messages with deadlines (see dist.h). */
#include "config.h"
#include "dist/dist.h"
#include "core/error.h"
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_MPI
#include <mpi.h>
#endif

static int started, rank, size = 1;
static char (*hosts)[64];
static unsigned char *dead;

int bl_dist_rank(void) { return rank; }
int bl_dist_size(void) { return size; }
int bl_dist_on(void) { return started; }
int bl_dist_writer(void) { return rank == 0; }
int bl_dist_dead(int r) { return dead && r >= 0 && r < size && dead[r]; }
static int lost_some;   /* a collective timed out or failed: some rank, unknown which, is gone */
void bl_dist_mark_dead(int r)
{
    if (r < 0) lost_some = 1;
    else if (dead && r < size) dead[r] = 1;
}
int bl_dist_lost(void)
{
    int any = lost_some;
    for (int i = 0; dead && i < size; i++) any |= dead[i];
    return any;
}
const char *bl_dist_host(int r) { return hosts && r >= 0 && r < size ? hosts[r] : ""; }

static double timeout_s = 120;
double bl_dist_timeout(void) { return timeout_s; }

int bl_dist_read_timeout(void)
{
    const char *e = getenv("BLOCKLAB_MPI_TIMEOUT");
    timeout_s = 120;
    if (!e || !*e) return 0;
    char *end;
    errno = 0;
    double t = strtod(e, &end);
    while (*end == ' ') end++;
    if (end == e || *end || errno || !isfinite(t) || t < BL_DIST_TIMEOUT_MIN || t > BL_DIST_TIMEOUT_MAX)
        return bl_fail("BLOCKLAB_MPI_TIMEOUT='%.40s': expected seconds from %d to %d (how long a silent rank "
                       "counts as alive; default 120)", e, BL_DIST_TIMEOUT_MIN, BL_DIST_TIMEOUT_MAX);
    timeout_s = t;
    return 0;
}

static int errfd = 2;      /* ranks > 0: their own standard error, kept for bl_dist_fatal */

void bl_dist_quiet(void)
{
    const char *v = getenv("BLOCKLAB_MPI_VERBOSE");
    if (v && *v == '1') return;
    fflush(stdout);
    fflush(stderr);
    int fd = dup(STDERR_FILENO);
    if (fd >= 0) errfd = fd;
    FILE *null = freopen("/dev/null", "w", stdout);
    (void)null;
    null = freopen("/dev/null", "w", stderr);
    (void)null;
}

void bl_dist_nap(void)
{
    struct timespec ts = { 0, 1000000 };
    nanosleep(&ts, NULL);
}

double bl_dist_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#ifdef HAVE_MPI
static pthread_t main_thread;
static double heard0;               /* ranks > 0: when rank 0 was last heard */
static MPI_Request *alive_q;        /* rank 0: the last "alive" message to each rank */
static double alive_last;

void bl_dist_fatal(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char line[700];
    int n = snprintf(line, sizeof line, "blocklab: rank %d (%s): %s; ending the job (MPI_Abort)\n", rank,
                     bl_dist_host(rank), msg);
    fflush(stdout);
    fflush(stderr);
    if (n > 0 && write(errfd, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1)) < 0) n = 0;
    MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

void bl_dist_alive(void)
{
    if (!started || size < 2 || rank != 0 || !alive_q || !pthread_equal(pthread_self(), main_thread)) return;
    double t = bl_dist_now(), every = timeout_s / 5 < 10 ? timeout_s / 5 : 10;
    if (t - alive_last < every) return;
    alive_last = t;
    static char one = 1;
    for (int k = 1; k < size; k++) {
        if (dead[k]) continue;
        int done = 1;
        if (alive_q[k] != MPI_REQUEST_NULL && MPI_Test(&alive_q[k], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            dead[k] = 1;
            continue;
        }
        if (done) MPI_Isend(&one, 1, MPI_BYTE, k, BL_TAG_ALIVE, MPI_COMM_WORLD, &alive_q[k]);
    }
}

void bl_dist_watch(double since)
{
    if (!started || size < 2) return;
    if (rank == 0) {
        bl_dist_alive();
        return;
    }
    int flag = 1;
    while (flag) {
        MPI_Status st;
        flag = 0;
        if (MPI_Iprobe(0, BL_TAG_ALIVE, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS) break;
        if (flag) {
            char b;
            MPI_Recv(&b, 1, MPI_BYTE, 0, BL_TAG_ALIVE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            heard0 = bl_dist_now();
        }
    }
    double t = bl_dist_now(), last = heard0 > since ? heard0 : since;
    if (t - last > timeout_s)
        bl_dist_fatal("rank 0 (%s) sent nothing for %.0f s (BLOCKLAB_MPI_TIMEOUT): it died or hangs",
                      bl_dist_host(0), t - last);
}

/* bl_dist_wait and bl_dist_wait_idle: test the request, after spin_s seconds of this wait
 * sleeping a millisecond between tests */
static int wait_for(MPI_Request *q, double t0, const char *what, double spin_s)
{
    double t1 = bl_dist_now();
    for (int spin = 0;; spin++) {
        int done = 0;
        if (MPI_Test(q, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            bl_dist_mark_dead(-1);   /* MPI_Finalize would wait for it: the job ends by MPI_Abort */
            return bl_fail("the %s failed: a rank died", what);
        }
        if (done) return 0;
        bl_dist_watch(t0);      /* a follower ends here when rank 0 is gone */
        double t = bl_dist_now();
        if (t - t0 > timeout_s) {
            bl_dist_mark_dead(-1);
            return bl_fail("not every rank joined the %s within %.0f s (BLOCKLAB_MPI_TIMEOUT): a rank died or hangs",
                           what, timeout_s);
        }
        /* libnbc moves a nonblocking collective on only inside MPI_Test: test often, leaving
         * the core to the other ranks now and then (sleeping costs a millisecond a round) */
        if (t - t0 > 5 || t - t1 > spin_s) bl_dist_nap();
        else if ((spin & 63) == 63) sched_yield();
    }
}

int bl_dist_wait(void *req, double t0, const char *what) { return wait_for(req, t0, what, 5); }
int bl_dist_wait_idle(void *req, double t0, const char *what) { return wait_for(req, t0, what, 0.002); }

/* Started by a launcher: Open MPI, MPICH/Hydra and PMIx-based launchers (Slurm's srun --mpi=pmix
 * or pmi2) set one of these. */
static int launched(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", NULL };
    for (int i = 0; vars[i]; i++)
        if (getenv(vars[i])) return 1;
    return 0;
}

int bl_dist_init(int *argc, char ***argv, int force)
{
    if (!force && !launched()) return 0;
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return bl_fail("mpi: MPI_Init failed");
    /* errors come back as codes: a dead peer must not abort the ranks still working */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* the same environment on every rank: all of them stop here, rank 0 says why, before the
     * barrier: a rank that exits first with status 2 makes the launcher end the others, which
     * cut rank 0 off before its line when it wrote it after MPI_Finalize */
    if (bl_dist_read_timeout() < 0) {
        if (rank == 0) fprintf(stderr, "blocklab: %s\n", bl_error());
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return -2;
    }
    started = 1;
    main_thread = pthread_self();
    heard0 = bl_dist_now();
    hosts = calloc((size_t)size, sizeof *hosts);
    dead = calloc((size_t)size, 1);
    alive_q = malloc((size_t)size * sizeof *alive_q);
    if (!hosts || !dead || !alive_q) return bl_fail("mpi: out of memory");
    for (int k = 0; k < size; k++) alive_q[k] = MPI_REQUEST_NULL;
    char me[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    MPI_Get_processor_name(me, &len);
    char mine[64];
    snprintf(mine, sizeof mine, "%s", me);
    MPI_Allgather(mine, 64, MPI_CHAR, hosts, 64, MPI_CHAR, MPI_COMM_WORLD);
    return 0;
}

void bl_dist_finalize(int rc)
{
    if (!started) return;
    int any = lost_some;
    for (int i = 0; i < size; i++) any |= dead[i];
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; alive_q && k < size; k++)     /* one-byte sends: they complete on their own */
        if (alive_q[k] != MPI_REQUEST_NULL) MPI_Request_free(&alive_q[k]);
    if (any) {  /* MPI_Finalize could wait for a rank that hangs: the launcher ends them all */
        fprintf(stderr, "blocklab: a rank died or hangs; ending the job with MPI_Abort (status %d)\n", rc ? rc : 1);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, rc ? rc : 1);
    }
    MPI_Finalize();
    started = 0;
}

int bl_dist_send(int to, int tag, const void *buf, size_t n)
{
    if (!started || bl_dist_dead(to)) return bl_fail("mpi: rank %d is gone", to);
    if (n > (size_t)0x7fffffff) return bl_fail("mpi: message of %zu bytes is too large", n);
    MPI_Request q;
    if (MPI_Isend((void *)buf, (int)n, MPI_BYTE, to, tag, MPI_COMM_WORLD, &q) != MPI_SUCCESS) {
        bl_dist_mark_dead(to);
        return bl_fail("mpi: rank %d (%s) cannot be reached", to, bl_dist_host(to));
    }
    double t0 = bl_dist_now(), limit = bl_dist_timeout();
    for (int spin = 0;; spin++) {
        int done = 0;
        if (MPI_Test(&q, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            bl_dist_mark_dead(to);
            return bl_fail("mpi: rank %d (%s) cannot be reached", to, bl_dist_host(to));
        }
        if (done) return 0;
        bl_dist_watch(t0);
        if (bl_dist_now() - t0 > limit) {
            MPI_Cancel(&q);
            MPI_Request_free(&q);
            bl_dist_mark_dead(to);
            return bl_fail("mpi: rank %d (%s) took nothing for %.0f s (BLOCKLAB_MPI_TIMEOUT)", to,
                           bl_dist_host(to), limit);
        }
        if (spin > 100) bl_dist_nap();
    }
}

int bl_dist_pending(int from, int tag, int *src)
{
    if (!started) return 0;
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(from < 0 ? MPI_ANY_SOURCE : from, tag, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS) return 0;
    if (flag && src) *src = st.MPI_SOURCE;
    return flag;
}

char *bl_dist_recv(int from, int tag, double timeout_s, size_t *n)
{
    double t0 = bl_dist_now();
    MPI_Status st;
    for (int spin = 0;; spin++) {
        int flag = 0;
        if (MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS) flag = 0;
        if (flag) break;
        bl_dist_watch(t0);      /* waiting: rank 0 says it lives, a follower ends when it does not */
        if (timeout_s > 0 && bl_dist_now() - t0 > timeout_s)
            return BL_FAILP("mpi: rank %d (%s) sent nothing for %.0f s", from, bl_dist_host(from), timeout_s);
        if (spin > 100) bl_dist_nap();
    }
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    char *buf = malloc((size_t)count + 1);
    if (!buf) return BL_FAILP("mpi: out of memory for a message of %d bytes", count);
    if (MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        free(buf);
        return BL_FAILP("mpi: receiving from rank %d failed", from);
    }
    buf[count] = 0;
    if (n) *n = (size_t)count;
    if (st.MPI_SOURCE == 0) heard0 = bl_dist_now();
    return buf;
}
#else
int bl_dist_init(int *argc, char ***argv, int force)
{
    (void)argc, (void)argv;
    return force ? bl_fail("mpi: this blocklab was built without MPI (./configure --with-mpi, "
                           "apt-get install -y libopenmpi-dev openmpi-bin)") : 0;
}
void bl_dist_finalize(int rc) { (void)rc; }
void bl_dist_fatal(const char *fmt, ...) { (void)fmt; abort(); }
void bl_dist_alive(void) {}
void bl_dist_watch(double since) { (void)since; }
int bl_dist_wait(void *req, double t0, const char *what) { (void)req, (void)t0; return bl_fail("%s: no MPI", what); }
int bl_dist_wait_idle(void *req, double t0, const char *what) { return bl_dist_wait(req, t0, what); }
int bl_dist_send(int to, int tag, const void *buf, size_t n)
{
    (void)to, (void)tag, (void)buf, (void)n;
    return bl_fail("mpi: no MPI in this build");
}
int bl_dist_pending(int from, int tag, int *src) { (void)from, (void)tag, (void)src; return 0; }
char *bl_dist_recv(int from, int tag, double timeout_s, size_t *n)
{
    (void)from, (void)tag, (void)timeout_s, (void)n;
    return BL_FAILP("mpi: no MPI in this build");
}
#endif
