// The fault describer (faultline_shim_describe_fault, declared in the
// public header): preallocation at install.
#ifndef SHIM_DESCRIBE_H
#define SHIM_DESCRIBE_H

/// Reserves the image list the describer fills at fault time.
void shim_describe_init(void);

#endif
