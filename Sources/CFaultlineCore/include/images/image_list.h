// Loaded images (executable and shared objects) read from /proc/self/maps
// and their in-memory ELF headers, with GNU build-ids. Async-signal-safe:
// dl_iterate_phdr takes the loader lock, so it is avoided on the fault path.
#ifndef FL_IMAGE_LIST_H
#define FL_IMAGE_LIST_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#define FL_MAX_IMAGES 1024
#define FL_IMAGE_PATH_MAX 512
#define FL_BUILD_ID_MAX 32

/// One loaded image.
typedef struct fl_image {
    char path[FL_IMAGE_PATH_MAX];
    uintptr_t start;      ///< lowest mapped address
    uintptr_t end;        ///< end of the highest mapping of this file
    uintptr_t load_bias;  ///< address minus link-time virtual address
    unsigned char build_id[FL_BUILD_ID_MAX];
    int build_id_len;
} fl_image;

/// A snapshot of the images, in address order.
typedef struct fl_image_list {
    fl_image images[FL_MAX_IMAGES];
    int count;
} fl_image_list;

/// Fills `list` from /proc/self/maps. Returns the number of images.
int fl_images_load(fl_image_list *list);

/// Fills `list` from an open /proc/self/maps, read again from its start.
/// Keeping the file open keeps the kernel's read buffer too, so a load
/// asks the kernel for no memory. Returns the number of images.
int fl_images_load_fd(fl_image_list *list, int fd);

/// Index of the image containing `addr`, or -1.
int fl_images_find(const fl_image_list *list, uintptr_t addr);

/// The program headers of the ELF image mapped at `base` and their count,
/// or 0 when the `mapped` readable bytes there hold no ELF header and
/// program headers.
const ElfW(Phdr) *fl_elf_phdrs(uintptr_t base, size_t mapped, int *count);

#endif
