/* histfile.h - the history file's text, read and written without GNU readline's own reader, so
 * that a file that is not text or holds an enormous line cannot hang or fill the prompt.
 *
 * The file is the one readline writes with timestamps and multi-line entries: a line "#TIME"
 * (seconds since 1970) before each entry, then the entry's lines (a block, for ... end, keeps
 * its lines as one entry); lines before the first "#TIME" line (an older file) are one entry
 * each. Reading keeps the lines up to the first
 * byte that is not text (a NUL byte, or invalid UTF-8: the line it is in is dropped) and leaves
 * out any line longer than BL_HIST_ENTRY_MAX bytes (a 2 MB pasted line made scrolling up take
 * 40 s); the caller warns once and rewrites the file clean on exit (issue 20, issue 15).
 */
#ifndef BL_REPL_HISTFILE_H
#define BL_REPL_HISTFILE_H

#include <stddef.h>

/* the longest history entry kept (bytes) */
#define BL_HIST_ENTRY_MAX 65536
/* the number of entries kept when BLOCKLAB_HISTSIZE and `history size=` do not say */
#define BL_HIST_SIZE_DEFAULT 2000
/* the most entries `history size=` and BLOCKLAB_HISTSIZE take */
#define BL_HIST_SIZE_MAX 1000000

typedef struct {
    size_t text_end;    /* bytes read as text; < n when a NUL byte or invalid UTF-8 stopped it */
    int long_lines;     /* lines over BL_HIST_ENTRY_MAX left out */
    int kept;           /* lines handed to add */
} bl_hist_scan;

/* Split buf[0..n) (any bytes) into its entries and call add(ctx, entry) for each one kept, in
 * order (NUL-terminated, the lines of an entry joined by '\n'; empty ones skipped). An entry over
 * BL_HIST_ENTRY_MAX bytes is left out and counted in long_lines. Fills *r.
 * Returns 0, or -1 + error when out of memory. */
int bl_hist_parse(const char *buf, size_t n, void (*add)(void *ctx, const char *line), void *ctx,
                  bl_hist_scan *r);

/* Read the history file at path into add (as bl_hist_parse). A missing file is no history (0,
 * r->kept == 0). -1 + error "PATH: reason" when it cannot be read (not a regular file, ...). */
int bl_hist_read(const char *path, void (*add)(void *ctx, const char *line), void *ctx, bl_hist_scan *r);

/* One line for a scan that left something out (no newline), or NULL when the file was clean:
 * "the history file PATH is not text after byte N (a NUL byte or invalid UTF-8): kept the M
 * statements before it; it is rewritten clean on exit" and/or "K entries longer than 64 KiB
 * left out". In buf (n bytes). */
const char *bl_hist_warning(const char *path, const bl_hist_scan *r, size_t size, char *buf, size_t n);

/* Write entries[0..n) to path atomically, each after a "#TIME" line, leaving out those longer than
 * BL_HIST_ENTRY_MAX and any that are not text. 0, or -1 + error naming the file. */
int bl_hist_write(const char *path, const char *const *entries, int n);

/* The history size from BLOCKLAB_HISTSIZE's value s (NULL or empty: the default). -1 + error
 * "expected a whole number in [0, 1000000], got 'S'" for anything else. */
int bl_hist_size_parse(const char *s);

#endif
