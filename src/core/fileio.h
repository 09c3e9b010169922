/* fileio.h - atomic file writes: nothing a user made is ever half-overwritten.
 *
 * bl_atomic_open() creates a unique PATH.tmpXXXXXX (mkstemp) beside PATH, with the mode fopen would
 * give a new file (0666 less the umask); the caller writes to the
 * returned FILE; bl_atomic_commit() flushes, fsyncs and renames it over PATH (or removes the temp
 * file and reports when any write failed); bl_atomic_abort() discards it. An existing PATH is
 * untouched until the rename, so a failed write leaves the old file as it was. The new file
 * keeps the mode of the one it replaces; when PATH is a symbolic link to a file, that file is
 * replaced and the link kept. A PATH that exists and is neither a file nor a folder (a device
 * such as /dev/null or /dev/stdout, a fifo) is opened and written in place, as a shell's > does
 * (renaming over it would replace the device with a plain file).
 * Errors: NULL / -1 with "PATH: <strerror>" in bl_error(); when the destination's directory
 * takes no file, the first of its components (from the left) that is the reason:
 * "PATH: directory 'DIR' does not exist" for a missing one, "PATH: 'DIR' is a file, not a
 * directory" for a file ("'DIR' is not a directory" for anything else that is no folder);
 * "PATH: cannot make a file in 'DIR': <strerror>" when it is a folder that takes none (/proc);
 * "PATH: is a directory, not a file" when PATH is a folder (found here, not at the rename).
 */
#ifndef BL_FILEIO_H
#define BL_FILEIO_H

#include <stdio.h>
#include <stddef.h>
#include <sys/stat.h>

typedef struct bl_atomic_file {
    FILE *f;
    int direct;        /* written in place: PATH is a device or fifo (no temp file) */
    char path[4096];
    char tmp[4120];
} bl_atomic_file;

int bl_atomic_open(bl_atomic_file *af, const char *path);
/* Refuse every write of this process from now on (on != 0): bl_atomic_open then fails with
 * "PATH: writing files is off (a sandbox)". For the fuzz targets (tests/fuzz), which run the
 * evaluator on random statements. Returns the previous setting. */
int bl_fileio_readonly(int on);
/* Write every file of this process into nothing from now on (on != 0): bl_atomic_open opens
 * /dev/null and the commit succeeds, publishing nothing. For the ranks > 0 of an MPI run
 * (src/dist), which run every statement rank 0 runs while rank 0 alone writes the files.
 * Returns the previous setting. */
int bl_fileio_discard(int on);
/* Whether fd is a person's terminal: isatty(fd), but never after bl_terminal_distrust(1). Open
 * MPI's mpirun gives every rank a pseudo-terminal even when its own output goes to a file, so
 * under a launcher (src/dist) progress bars, colours and pictures take the file's forms. */
int bl_is_terminal(int fd);
void bl_terminal_distrust(int on);
int bl_atomic_commit(bl_atomic_file *af);
void bl_atomic_abort(bl_atomic_file *af);
/* Write n bytes to path atomically. */
int bl_write_file_atomic(const char *path, const void *data, size_t n);
/* Open PATH for reading only when it is a regular file (or a link to one), so that no reader
 * waits forever on a device, fifo or socket (/dev/zero, /dev/urandom, a named pipe never
 * written), or reads a folder as nothing. The open is non-blocking (a fifo does not block it),
 * the descriptor is then made blocking again; *st (may be NULL) gets its fstat.
 * Returns the descriptor, or -1 with the reason alone in bl_error() (callers prefix the file):
 * "<strerror>", "is a directory, expected a file" or "not a regular file (a device, pipe or
 * socket)". */
int bl_open_regular(const char *path, struct stat *st);
/* The same as a stdio FILE ("rb"); NULL + the same errors. */
FILE *bl_fopen_regular(const char *path);
/* Read a whole regular file into a malloc'd buffer (NUL-terminated; *n = size).
 * NULL + "PATH: reason" (bl_open_regular's reasons). */
char *bl_read_file(const char *path, size_t *n);

#endif
