/* fileio.c - atomic writes via temp file + fsync + rename (see fileio.h). */
#include "core/fileio.h"
#include "core/error.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

/* Why the folder dir takes no file: the first of its components, from the left, that is missing
 * ("directory 'a' does not exist" for a/b/c when a is missing) or is no folder ("'keep.csv' is a
 * file, not a directory" for keep.csv/a); 0 when every one is a folder. */
static int dir_problem(const char *path, const char *dir)
{
    char pre[sizeof ((bl_atomic_file *)0)->path];
    size_t n = strlen(dir);
    for (size_t i = 1; i <= n; i++) {
        if (i < n && dir[i] != '/') continue;
        if (dir[i - 1] == '/') continue;   /* the root, or a//b */
        memcpy(pre, dir, i);
        pre[i] = '\0';
        struct stat st;
        if (stat(pre, &st) != 0) {
            if (errno == ENOENT) return bl_fail("%s: directory '%s' does not exist", path, pre);
            return bl_fail("%s: '%s': %s", path, pre, strerror(errno));
        }
        if (S_ISREG(st.st_mode)) return bl_fail("%s: '%s' is a file, not a directory", path, pre);
        if (!S_ISDIR(st.st_mode)) return bl_fail("%s: '%s' is not a directory", path, pre);
    }
    return 0;
}

static int readonly, discard;

static int distrust;
void bl_terminal_distrust(int on) { distrust = on; }
int bl_is_terminal(int fd) { return !distrust && isatty(fd); }

int bl_fileio_discard(int on)
{
    int was = discard;
    discard = on;
    return was;
}

int bl_fileio_readonly(int on)
{
    int was = readonly;
    readonly = on;
    return was;
}

int bl_atomic_open(bl_atomic_file *af, const char *path)
{
    memset(af, 0, sizeof *af);
    if (readonly) return bl_fail("%s: writing files is off (a sandbox)", path);
    if (strlen(path) >= sizeof af->path) return bl_fail("%.64s...: file name too long", path);
    strcpy(af->path, path);
    if (discard) {
        af->direct = 1;
        af->f = fopen("/dev/null", "wb");
        return af->f ? 0 : bl_fail("%s: /dev/null: %s", path, strerror(errno));
    }
    struct stat pst;
    int exists = stat(path, &pst) == 0;
    /* the rename at commit would fail (EISDIR), after the work: say so now, as the folder */
    if (exists && S_ISDIR(pst.st_mode)) return bl_fail("%s: is a directory, not a file", path);
    if (exists && !S_ISREG(pst.st_mode)) {
        /* a device, fifo or socket (/dev/null, /dev/stdout, a named pipe): written in place, as
         * a shell's > does; a rename would put a plain file where the device was */
        af->direct = 1;
        af->f = fopen(path, "wb");
        return af->f ? 0 : bl_fail("%s: %s", path, strerror(errno));
    }
    /* a link to a file: the file it names is replaced and the link kept */
    struct stat lst;
    char *real = exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) ? realpath(path, NULL) : NULL;
    if (real && strlen(real) < sizeof af->path) strcpy(af->path, real);
    free(real);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmpXXXXXX", af->path);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        /* mkstemp's ENOENT also means a folder that takes no new files (/proc): the folder itself
         * says whether it is missing or not one */
        int e = errno;
        char dir[sizeof af->path];
        strcpy(dir, path);
        char *slash = strrchr(dir, '/');
        if (slash) slash[slash == dir] = 0;
        const char *d = slash ? dir : ".";
        if (e != ENOENT && e != ENOTDIR) return bl_fail("%s: %s", path, strerror(e));
        if (dir_problem(path, d) < 0) return -1;
        return bl_fail("%s: cannot make a file in '%s': %s", path, d, strerror(e));
    }
    /* mkstemp makes 0600; the file gets the mode of the file it replaces, else the mode fopen
     * would give a new one (0666 less the umask) */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, exists ? pst.st_mode & 07777 : 0666 & ~mask);
    af->f = fdopen(fd, "wb");
    if (!af->f) {
        int e = errno;
        close(fd);
        remove(af->tmp);
        return bl_fail("%s: %s", path, strerror(e));
    }
    return 0;
}

int bl_atomic_commit(bl_atomic_file *af)
{
    int err = 0;
    if (fflush(af->f) != 0 || ferror(af->f)) err = errno ? errno : EIO;
    if (af->direct) {   /* nothing to sync or rename (fsync fails on /dev/null) */
        if (fclose(af->f) != 0 && !err) err = errno ? errno : EIO;
        af->f = NULL;
        return err ? bl_fail("%s: %s", af->path, strerror(err)) : 0;
    }
    if (!err && fsync(fileno(af->f)) != 0) err = errno;
    if (fclose(af->f) != 0 && !err) err = errno ? errno : EIO;
    af->f = NULL;
    if (!err && rename(af->tmp, af->path) != 0) err = errno;
    if (err) {
        remove(af->tmp);
        return bl_fail("%s: %s", af->path, strerror(err));
    }
    return 0;
}

void bl_atomic_abort(bl_atomic_file *af)
{
    if (af->f) fclose(af->f);
    af->f = NULL;
    if (!af->direct) remove(af->tmp);
}

int bl_write_file_atomic(const char *path, const void *data, size_t n)
{
    bl_atomic_file af;
    if (bl_atomic_open(&af, path) < 0) return -1;
    if (n && fwrite(data, 1, n, af.f) != n) {
        int e = errno;
        bl_atomic_abort(&af);
        return bl_fail("%s: %s", path, strerror(e ? e : EIO));
    }
    return bl_atomic_commit(&af);
}

int bl_open_regular(const char *path, struct stat *st)
{
    struct stat sb;
    if (!st) st = &sb;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return bl_fail("%s", strerror(errno));
    const char *why = NULL;
    if (fstat(fd, st) != 0) why = strerror(errno);
    else if (S_ISDIR(st->st_mode)) why = "is a directory, expected a file";
    else if (!S_ISREG(st->st_mode)) why = "not a regular file (a device, pipe or socket)";
    else {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) why = strerror(errno);
    }
    if (why) {
        bl_fail("%s", why);
        close(fd);
        return -1;
    }
    return fd;
}

FILE *bl_fopen_regular(const char *path)
{
    int fd = bl_open_regular(path, NULL);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        bl_fail("%s", strerror(errno));
        close(fd);
    }
    return f;
}

char *bl_read_file(const char *path, size_t *n)
{
    FILE *f = bl_fopen_regular(path);
    if (!f) {
        bl_error_prefix("%s", path);
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (!buf) { fclose(f); return BL_FAILP("%s: out of memory", path); }
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) free(buf);
        buf = nb;
    }
    if (ferror(f)) { int e = errno; fclose(f); free(buf); return BL_FAILP("%s: %s", path, strerror(e)); }
    fclose(f);
    buf[len] = 0;
    if (n) *n = len;
    return buf;
}
