/*
   Redirecting the calls that loaded shared libraries make to an exported function, in a running
   process, without relinking anything (used for hypre's BoomerAMG: hypre_rap.cxx).

   A call from one shared object to a function it does not bind locally goes through the object's
   procedure linkage table: `call f@plt` jumps through a slot of its global offset table, filled by
   the dynamic linker (lazily, or at load with BIND_NOW) from the R_*_JUMP_SLOT relocation that names
   f. A plugin loaded later with dlopen cannot interpose f by symbol order (the objects already loaded
   come first in the lookup scope), but it can overwrite those slots: the calls then reach the
   replacement, and the replacement reaches the original through the address dlsym gives.

   Calls through the global offset table itself (`call *f@GOTPCREL`: -fno-plt, or the .plt.got stubs
   the linker makes for functions whose address is also taken) are redirected the same way, through
   the R_*_GLOB_DAT slots that name the function. Such a slot also serves the function's address as
   a pointer: within that object, &f is then the replacement (which forwards to f).

   Limits, each reported (redirect returns 0 slots and says why) rather than silently ignored:
   - a library built with -Bsymbolic, hidden visibility or link-time optimisation binds its internal
     calls directly, and a static library linked into the program has no slots for its internal calls;
   - ELF on x86-64 and AArch64 (the relocation types below);
   - the slots of the plugin itself are left alone (it calls the original through the saved address);
   - slots inside PT_GNU_RELRO (BIND_NOW libraries) are made writable for the write, then read-only
     again (its whole pages: the loader leaves the last partial one writable).
   restore() puts the previous values back; it must run before the replacement's code is unloaded.
*/
#pragma once

#include <string>
#include <vector>

struct PltRedirection {
  std::vector<void **> slots;    /* the slots written */
  std::vector<void *>  previous;  /* what each held before */
  std::vector<bool>    read_only; /* inside PT_GNU_RELRO */
};

/* Points every JUMP_SLOT and GLOB_DAT slot naming the function `symbol`, in every loaded object but the
   plugin, at replacement.
   Returns the number of slots written (0: none found, *why says what was searched), recorded in r
   (to be restored); throws std::runtime_error if a slot could not be made writable. */
int  PltRedirect(const char *symbol, void *replacement, PltRedirection *r, std::string *why);
void PltRestore(PltRedirection *r) noexcept; /* a slot that cannot be written back keeps the replacement */
