#include "image_list.h"
#include "fd_transient.h"
#include "page_size.h"
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

// End of the address range the PT_LOAD segments of the image mapped at
// `base` span (load_bias + highest p_vaddr + p_memsz), or 0 when unknown.
static uintptr_t elf_load_end(uintptr_t base, size_t mapped, uintptr_t bias) {
    int n = 0;
    const ElfW(Phdr) *ph = fl_elf_phdrs(base, mapped, &n);
    uintptr_t top = 0;
    for (int i = 0; ph && i < n; i++) {
        if (ph[i].p_type != PT_LOAD) continue;
        uintptr_t seg_end = (uintptr_t)ph[i].p_vaddr + (uintptr_t)ph[i].p_memsz;
        if (seg_end < ph[i].p_vaddr) return 0;
        if (seg_end > top) top = seg_end;
    }
    if (top == 0 || bias + top < bias) return 0;
    return bias + top;
}

int fl_elf_build_id(uintptr_t base, size_t mapped, unsigned char *out, int cap, uintptr_t *load_bias) {
    int phnum = 0;
    const ElfW(Phdr) *ph = fl_elf_phdrs(base, mapped, &phnum);
    if (!ph) return 0;
    uintptr_t bias = base;
    for (int i = 0; i < phnum; i++) {
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) { bias = base - (ph[i].p_vaddr & ~(uintptr_t)(fl_page_size() - 1)); break; }
    }
    if (load_bias) *load_bias = bias;
    for (int i = 0; i < phnum; i++) {
        if (ph[i].p_type != PT_NOTE) continue;
        uintptr_t p = bias + ph[i].p_vaddr;
        uintptr_t end = p + ph[i].p_memsz;
        // Notes must lie in the first mapping we know to be readable.
        if (p < base || end > base + mapped) continue;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            uintptr_t name = p + sizeof(*nh);
            uintptr_t desc = name + ((nh->n_namesz + 3) & ~3u);
            uintptr_t next = desc + ((nh->n_descsz + 3) & ~3u);
            if (next > end) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                ((const char *)name)[0] == 'G' && ((const char *)name)[1] == 'N' && ((const char *)name)[2] == 'U') {
                int n = (int)nh->n_descsz < cap ? (int)nh->n_descsz : cap;
                fl_memcpy(out, (const void *)desc, (size_t)n);
                return n;
            }
            p = next;
        }
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
    char perm_r = p[0];
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
    if (last && fl_streq(last->path, p) &&
        (offset != 0 || (start >= last->start && start < *load_end))) {
        if (end > last->end) last->end = end;
        return;
    }
    if (offset != 0 || list->count >= FL_MAX_IMAGES) return;
    fl_image *img = &list->images[list->count++];
    fl_strlcpy(img->path, p, sizeof img->path);
    img->start = start;
    img->end = end;
    img->load_bias = start;
    img->build_id_len = 0;
    *load_end = 0;
    if (perm_r == 'r') {
        img->build_id_len = fl_elf_build_id(start, end - start, img->build_id, FL_BUILD_ID_MAX, &img->load_bias);
        *load_end = elf_load_end(start, end - start, img->load_bias);
    }
}

int fl_images_load(fl_image_list *list) {
    list->count = 0;
    // The calling thread's view: /proc/self/maps reads empty once the main
    // thread has ended (pthread_exit) while other threads run.
    int fd = fl_open_high("/proc/thread-self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) fd = fl_open_high("/proc/self/maps", O_RDONLY | O_CLOEXEC);
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
