// The suppressions file's format, read by the malloc shim at start-up
// (FAULTLINE_SUPPRESSIONS) and checked by `faultline exec --suppressions`
// before the program starts: the one parser both call, so that a kind, a
// comment rule or a message cannot differ between them. One suppression a
// line, `KIND:PATTERN`; `#` starts a comment line; blank lines are ignored;
// blanks (space, tab, CR) around a line are trimmed.
//
// Allocation-free and without locks or stdio: the shim calls it from its
// constructor, before it serves any allocation. Self-contained (libc's
// string functions only), so that the Swift side links this and nothing
// of the agent's.
#ifndef FAULTLINE_SUPPRESSIONS_PARSE_H
#define FAULTLINE_SUPPRESSIONS_PARSE_H

#include <stddef.h>

/// Most suppressions a file may hold.
#define FL_SUPP_MAX_ENTRIES 256
/// Pattern bytes, the terminating NUL included: a pattern has at most 255.
#define FL_SUPP_PATTERN_MAX 256
/// Most bytes of a file that are read (256 KiB).
#define FL_SUPP_FILE_MAX (256u << 10)
/// Room for the message fl_supp_describe writes, whatever the file and line.
#define FL_SUPP_DESCRIBE_MAX 1024

/// The error kinds a suppression names, in the order of their names.
typedef enum fl_supp_kind {
    FL_SUPP_LEAK,
    FL_SUPP_DOUBLE_FREE,
    FL_SUPP_INVALID_FREE,
    FL_SUPP_ALLOC_DEALLOC_MISMATCH,
    FL_SUPP_NEW_DELETE_TYPE_MISMATCH,
    FL_SUPP_WRITE_AFTER_FREE,
    /// A changed red zone past a block's end (matched by the block's
    /// allocation stack, and the freeing thread's when found at free).
    FL_SUPP_HEAP_BUFFER_OVERFLOW,
    /// Bytes in front of a block changed: its header, its links, the end
    /// of the previous block's red zone.
    FL_SUPP_HEAP_BUFFER_UNDERFLOW,
    FL_SUPP_KINDS
} fl_supp_kind;

/// What fl_supp_next found.
typedef enum fl_supp_verdict {
    /// No line left.
    FL_SUPP_END,
    /// A suppression: its kind and pattern are in the fl_supp_line.
    FL_SUPP_ENTRY,
    /// No known kind and ':' first, no pattern after it, or a NUL byte.
    FL_SUPP_NOT_A_SUPPRESSION,
    /// A pattern of FL_SUPP_PATTERN_MAX bytes or more.
    FL_SUPP_PATTERN_TOO_LONG,
    /// A good line after FL_SUPP_MAX_ENTRIES suppressions.
    FL_SUPP_TOO_MANY,
} fl_supp_verdict;

/// A file's text read line by line: set `text` and `len` (the text need
/// not end in NUL, and may hold NUL bytes), everything else zero.
typedef struct fl_supp_reader {
    const char *text;
    size_t len;
    /// Offset of the next line.
    size_t at;
    /// Number of the last line read (1 for the first).
    int line;
    /// Suppressions found so far.
    int entries;
} fl_supp_reader;

/// A line fl_supp_next returned: where it is and what it says.
typedef struct fl_supp_line {
    /// Its line number, from 1.
    int number;
    /// The line, blanks trimmed (inside the reader's text; no NUL).
    const char *text;
    size_t text_len;
    /// For FL_SUPP_ENTRY: the kind, and the pattern (inside `text`;
    /// 1 to FL_SUPP_PATTERN_MAX - 1 bytes, no NUL after it).
    fl_supp_kind kind;
    const char *pattern;
    size_t pattern_len;
} fl_supp_line;

/// The next line that is neither blank nor a comment, in `*out`: a
/// suppression, or why it is not one; FL_SUPP_END after the last line.
fl_supp_verdict fl_supp_next(fl_supp_reader *reader, fl_supp_line *out);

/// The kind's name as a suppression writes it (`double_free`).
const char *fl_supp_kind_name(fl_supp_kind kind);

/// Writes what is wrong with `line` (`verdict`, not FL_SUPP_ENTRY nor
/// FL_SUPP_END) into `out` (NUL-terminated, `cap` of FL_SUPP_DESCRIBE_MAX
/// is always enough), as `FILE:LINE: REASON: "VALUE"`: `file` as the
/// caller names it, the value as the line has it; both with control
/// characters and bytes that are not UTF-8 escaped, and cut ("...") when
/// long. Returns the length written.
size_t fl_supp_describe(char *out, size_t cap, const char *file, fl_supp_verdict verdict, const fl_supp_line *line);

/// What to do about a line of `verdict` (`fix or delete the line`), to
/// follow the description after "; ".
const char *fl_supp_advice(fl_supp_verdict verdict);

#endif
