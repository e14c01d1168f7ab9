#include "image_list.h"
#include "fd_transient.h"
#include "own_memory.h"
#include "page_size.h"
#include "proc_tid.h"
#include "sigsafe.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

const ElfW(Phdr) *fl_elf_phdrs(uintptr_t base, size_t mapped, int *count) {
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
    if (mapped < sizeof(*eh)) return 0;
    if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
        eh->e_ident[EI_MAG2] != ELFMAG2 || eh->e_ident[EI_MAG3] != ELFMAG3) return 0;
    if (eh->e_phoff + (size_t)eh->e_phnum * sizeof(ElfW(Phdr)) > mapped) return 0;
    *count = eh->e_phnum;
    return (const ElfW(Phdr) *)(base + eh->e_phoff);
}

/// Program headers copied per image: more than any toolchain here writes
/// (Swift executables have about 13).
#define HEADERS_MAX 40
/// Bytes of a PT_NOTE segment searched for the build-id.
#define NOTES_MAX 512

// Reads the ELF header, program headers and build-id note of the image
// whose first `mapped` bytes are mapped at `base`: sets img->load_bias
// (left at `base` when there is no header) and img->build_id, and returns
// the end of the address range its PT_LOAD segments span (0 when
// unknown). Every byte is copied, not read in place: a file truncated
// under its mapping (a data file another process shortened) raises SIGBUS
// when its pages are touched, and this runs in the crash handler and in
// the shim's checks at exit, where a healthy program then died of SIGBUS.
// Copies the program headers of the ELF file whose first `mapped` bytes
// are mapped at `base` into `ph` (room for HEADERS_MAX); returns how many,
// 0 when there is no ELF header there.
static int read_program_headers(uintptr_t base, size_t mapped, ElfW(Phdr) *ph) {
    ElfW(Ehdr) eh;
    if (mapped < sizeof eh || fl_copy_own_memory(base, &eh, sizeof eh) != 0) return 0;
    if (eh.e_ident[EI_MAG0] != ELFMAG0 || eh.e_ident[EI_MAG1] != ELFMAG1 || eh.e_ident[EI_MAG2] != ELFMAG2 ||
        eh.e_ident[EI_MAG3] != ELFMAG3 || eh.e_phnum == 0 || eh.e_phnum > HEADERS_MAX)
        return 0;
    size_t ph_bytes = (size_t)eh.e_phnum * sizeof(ElfW(Phdr));
    if (eh.e_phoff > mapped || ph_bytes > mapped - eh.e_phoff) return 0;
    if (fl_copy_own_memory(base + eh.e_phoff, ph, ph_bytes) != 0) return 0;
    return eh.e_phnum;
}

static uintptr_t read_image_header(uintptr_t base, size_t mapped, fl_image *img) {
    ElfW(Phdr) ph[HEADERS_MAX];
    int n = read_program_headers(base, mapped, ph);
    if (n == 0) return 0;
    uintptr_t bias = base, top = 0;
    for (int i = 0; i < n; i++) {
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) { bias = base - (ph[i].p_vaddr & ~(uintptr_t)(fl_page_size() - 1)); break; }
    }
    img->load_bias = bias;
    for (int i = 0; i < n; i++) {
        if (ph[i].p_type != PT_LOAD) continue;
        uintptr_t seg_end = (uintptr_t)ph[i].p_vaddr + (uintptr_t)ph[i].p_memsz;
        if (seg_end < ph[i].p_vaddr) { top = 0; break; }
        if (seg_end > top) top = seg_end;
    }
    for (int i = 0; i < n && !img->build_id_len; i++) {
        if (ph[i].p_type != PT_NOTE) continue;
        uintptr_t at = bias + ph[i].p_vaddr;
        size_t len = ph[i].p_memsz < NOTES_MAX ? (size_t)ph[i].p_memsz : NOTES_MAX;
        // Notes must lie in the first mapping, which is known to be readable.
        if (at < base || at - base > mapped || len > mapped - (at - base)) continue;
        unsigned char notes[NOTES_MAX];
        if (fl_copy_own_memory(at, notes, len) != 0) continue;
        size_t p = 0;
        while (p + sizeof(ElfW(Nhdr)) <= len) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(notes + p);
            size_t name = p + sizeof *nh;
            size_t desc = name + ((nh->n_namesz + 3) & ~3u);
            size_t next = desc + ((nh->n_descsz + 3) & ~3u);
            if (next > len) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && notes[name] == 'G' && notes[name + 1] == 'N' &&
                notes[name + 2] == 'U') {
                int k = (int)nh->n_descsz < FL_BUILD_ID_MAX ? (int)nh->n_descsz : FL_BUILD_ID_MAX;
                fl_memcpy(img->build_id, notes + desc, (size_t)k);
                img->build_id_len = k;
                break;
            }
            p = next;
        }
    }
    if (top == 0 || bias + top < bias) return 0;
    return bias + top;
}

// The link-time address of file offset `offset` of `img`'s file, from the
// PT_LOAD segment that holds it (headers read from the image's first
// mapping). 0 when no segment does.
static int link_address_of(const fl_image *img, uintptr_t offset, uintptr_t *vaddr) {
    ElfW(Phdr) ph[HEADERS_MAX];
    int n = read_program_headers(img->start, (size_t)(img->end - img->start), ph);
    for (int i = 0; i < n; i++) {
        if (ph[i].p_type != PT_LOAD || offset < ph[i].p_offset || offset - ph[i].p_offset >= ph[i].p_filesz) continue;
        *vaddr = (uintptr_t)ph[i].p_vaddr + (offset - (uintptr_t)ph[i].p_offset);
        return 1;
    }
    return 0;
}

// Parses one /proc/self/maps line into the list. `*load_end` carries the
// end of the last image's PT_LOAD span from line to line (0 when unknown).
static void add_line(fl_image_list *list, const char *line, uintptr_t *load_end) {
    const char *p = line;
    uintptr_t start = fl_parse_hex(p, &p);
    if (*p++ != '-') return;
    uintptr_t end = fl_parse_hex(p, &p);
    if (*p++ != ' ') return;
    char perm_r = p[0], perm_shared = p[3];
    p += 5;
    uintptr_t offset = fl_parse_hex(p, &p);
    // Skip " dev inode" to the path column.
    for (int field = 0; field < 2; field++) {
        while (*p == ' ') p++;
        while (*p && *p != ' ') p++;
    }
    while (*p == ' ') p++;
    if (*p != '/' && !fl_startswith(p, "[vdso]")) return;
    fl_image *last = list->count > 0 ? &list->images[list->count - 1] : 0;
    // A later mapping of the same file continues its image. Most start past
    // file offset 0, but lld packs a small file's segments into its first
    // page (and gold its relro page), so those map file offset 0 again: they
    // continue the image when they start inside its PT_LOAD span. Otherwise
    // the text would become an image of its own, its bias read from a header
    // that is not at the link-time address 0.
    int same_file = last && fl_streq(last->path, p);
    int inside = same_file && start >= last->start && start < *load_end;
    if (same_file && (inside || (offset != 0 && !*load_end))) {
        if (end > last->end) last->end = end;
        return;
    }
    // Past the span, a mapping of the same file is a copy the program made
    // (node maps part of its text again near its JIT code): taken into the
    // image, it stretched it over every address between, and a JIT frame
    // there was named as the executable's last symbol (`_end (node)`). It
    // is an image of its own, over just that mapping, whose bias makes its
    // addresses the file's link-time ones, so its frames are named too.
    if (same_file && offset != 0 && *load_end && list->count < FL_MAX_IMAGES) {
        uintptr_t vaddr;
        if (!link_address_of(last, offset, &vaddr)) return;
        fl_image *copy = &list->images[list->count++];
        fl_memcpy(copy, last, sizeof *copy);  // path and build-id
        copy->start = start;
        copy->end = end;
        copy->load_bias = start - vaddr;
        *load_end = end;
        return;
    }
    if (offset != 0 || list->count >= FL_MAX_IMAGES) return;
    fl_image *img = &list->images[list->count++];
    fl_strlcpy(img->path, p, sizeof img->path);
    img->start = start;
    img->end = end;
    img->load_bias = start;
    img->build_id_len = 0;
    // The loader maps images private: a shared mapping is a data file, left unread.
    *load_end = perm_r == 'r' && perm_shared != 's' ? read_image_header(start, end - start, img) : 0;
}

int fl_images_load(fl_image_list *list) {
    list->count = 0;
    // The calling thread's view: /proc/self/maps reads empty once the main
    // thread has ended (pthread_exit) while other threads run.
    int fd = fl_open_own_proc_file("maps");
    if (fd < 0) return 0;
    fl_images_load_fd(list, fd);
    fl_close_high(fd);
    return list->count;
}

int fl_images_load_fd(fl_image_list *list, int fd) {
    list->count = 0;
    if (lseek(fd, 0, SEEK_SET) != 0) return 0;
    char buf[4096];
    char line[FL_IMAGE_PATH_MAX + 128];
    size_t ll = 0;
    uintptr_t load_end = 0;
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        for (ssize_t i = 0; i < r; i++) {
            if (buf[i] == '\n') {
                line[ll] = 0;
                add_line(list, line, &load_end);
                ll = 0;
            } else if (ll + 1 < sizeof line) {
                line[ll++] = buf[i];
            }
        }
    }
    return list->count;
}

int fl_images_find(const fl_image_list *list, uintptr_t addr) {
    for (int i = 0; i < list->count; i++)
        if (addr >= list->images[i].start && addr < list->images[i].end) return i;
    return -1;
}
