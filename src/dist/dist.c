/* dist.c - MPI start, ranks, hosts and the polled messages with deadlines (see dist.h). */
#include "config.h"
#include "dist/dist.h"
#include "core/error.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
const char *bl_dist_host(int r) { return hosts && r >= 0 && r < size ? hosts[r] : ""; }

double bl_dist_timeout(void)
{
    const char *e = getenv("BLOCKLAB_MPI_TIMEOUT");
    double t = e && *e ? atof(e) : 0;
    return t > 0 && isfinite(t) ? t : 120;
}

void bl_dist_nap(void)
{
    struct timespec ts = { 0, 1000000 };
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#ifdef HAVE_MPI
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
    started = 1;
    hosts = calloc((size_t)size, sizeof *hosts);
    dead = calloc((size_t)size, 1);
    if (!hosts || !dead) return bl_fail("mpi: out of memory");
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
    double t0 = now_s(), limit = bl_dist_timeout();
    for (int spin = 0;; spin++) {
        int done = 0;
        if (MPI_Test(&q, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            bl_dist_mark_dead(to);
            return bl_fail("mpi: rank %d (%s) cannot be reached", to, bl_dist_host(to));
        }
        if (done) return 0;
        if (now_s() - t0 > limit) {
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
    double t0 = now_s();
    MPI_Status st;
    for (int spin = 0;; spin++) {
        int flag = 0;
        if (MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS) flag = 0;
        if (flag) break;
        if (timeout_s > 0 && now_s() - t0 > timeout_s)
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
