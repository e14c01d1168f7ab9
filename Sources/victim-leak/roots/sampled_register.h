// victim-leak sampled-register: a root only a signal frame holds.
#ifndef VICTIM_LEAK_SAMPLED_REGISTER_H
#define VICTIM_LEAK_SAMPLED_REGISTER_H

/// Keeps the only pointer to a 99-byte block in a register (r12 on x86-64)
/// while main spins 600 ms, so each hang sample's signal frame on the
/// alternate stack holds it; then drops it. Returns 0.
int victim_sampled_register(void);

#endif
