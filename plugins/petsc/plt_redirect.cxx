/* Redirecting PLT calls to a function: plt_redirect.h says what and why. */
#include "plt_redirect.h"

#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
  #define PLT_JUMP_SLOT R_X86_64_JUMP_SLOT
  #define PLT_GLOB_DAT  R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
  #define PLT_JUMP_SLOT R_AARCH64_JUMP_SLOT
  #define PLT_GLOB_DAT  R_AARCH64_GLOB_DAT
#endif
#define PLT_RELA_TYPE(info) ELF64_R_TYPE(info) /* both are 64-bit */
#define PLT_RELA_SYM(info)  ELF64_R_SYM(info)

#if defined(PLT_JUMP_SLOT)
namespace {

struct Search {
  const char     *symbol;
  void           *replacement;
  const void     *own_code; /* an address in the plugin: its object's slots are left alone */
  PltRedirection *r;
  int             objects = 0; /* objects with a PLT searched */
  std::string     error;       /* a slot that could not be written (the walk stops) */
};

/* glibc relocates the address entries of a loaded object's dynamic section in place, except where
   the section is read-only (the vDSO): an address below the load address is still relative. */
ElfW(Addr) Absolute(ElfW(Addr) p, ElfW(Addr) base)
{
  return p < base ? p + base : p;
}

std::uintptr_t PageSize()
{
  return static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
}

/* false if the slot's page could not be made writable */
bool WriteSlot(void **slot, void *value, bool read_only) noexcept
{
  const std::uintptr_t page  = PageSize();
  void *const          first = reinterpret_cast<void *>(reinterpret_cast<std::uintptr_t>(slot) & ~(page - 1));
  if (read_only && mprotect(first, page, PROT_READ | PROT_WRITE) != 0) return false;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE); /* a call racing with the write sees either target */
  if (read_only) mprotect(first, page, PROT_READ);
  return true;
}

int Visit(struct dl_phdr_info *info, size_t, void *data)
{
  auto *const      s    = static_cast<Search *>(data);
  const ElfW(Addr) base = info->dlpi_addr;
  const ElfW(Dyn) *dyn  = nullptr;
  ElfW(Addr) relro_begin = 0, relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && reinterpret_cast<ElfW(Addr)>(s->own_code) >= base + ph.p_vaddr && reinterpret_cast<ElfW(Addr)>(s->own_code) < base + ph.p_vaddr + ph.p_memsz) return 0;
    if (ph.p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn) *>(base + ph.p_vaddr);
    if (ph.p_type == PT_GNU_RELRO) { /* the loader protects whole pages only: the last partial page stays writable */
      relro_begin = base + ph.p_vaddr;
      relro_end   = (base + ph.p_vaddr + ph.p_memsz) & ~(PageSize() - 1);
    }
  }
  if (!dyn) return 0;
  ElfW(Addr) jmprel = 0, rela_all = 0, symtab = 0, strtab = 0;
  std::size_t  pltrelsz = 0, relasz = 0;
  ElfW(Sxword) pltrel   = 0;
  for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
    case DT_JMPREL:
      jmprel = Absolute(d->d_un.d_ptr, base);
      break;
    case DT_PLTRELSZ:
      pltrelsz = d->d_un.d_val;
      break;
    case DT_RELA:
      rela_all = Absolute(d->d_un.d_ptr, base);
      break;
    case DT_RELASZ:
      relasz = d->d_un.d_val;
      break;
    case DT_PLTREL:
      pltrel = d->d_un.d_val;
      break;
    case DT_SYMTAB:
      symtab = Absolute(d->d_un.d_ptr, base);
      break;
    case DT_STRTAB:
      strtab = Absolute(d->d_un.d_ptr, base);
      break;
    default:
      break;
    }
  }
  if (!symtab || !strtab || (jmprel && pltrel != DT_RELA)) return 0; /* both architectures use RELA */
  ++s->objects;
  const auto *symbols = reinterpret_cast<const ElfW(Sym) *>(symtab);
  const auto *names   = reinterpret_cast<const char *>(strtab);
  /* the PLT's slots, and the GOT's: calls through `call *f@GOTPCREL` (-fno-plt, or a .plt.got stub) */
  const struct {
    ElfW(Addr)  table;
    std::size_t bytes;
    unsigned    type;
  } tables[] = {{jmprel, pltrelsz, PLT_JUMP_SLOT}, {rela_all, relasz, PLT_GLOB_DAT}};
  for (const auto &t : tables) {
    const auto *rela = reinterpret_cast<const ElfW(Rela) *>(t.table);
    for (std::size_t k = 0; t.table && k < t.bytes / sizeof(ElfW(Rela)); ++k) {
      if (PLT_RELA_TYPE(rela[k].r_info) != t.type) continue;
      const ElfW(Sym) &sym = symbols[PLT_RELA_SYM(rela[k].r_info)];
      if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC && ELF64_ST_TYPE(sym.st_info) != STT_NOTYPE) continue;
      if (std::strcmp(names + sym.st_name, s->symbol) != 0) continue;
      void **const slot      = reinterpret_cast<void **>(base + rela[k].r_offset);
      const bool   read_only = reinterpret_cast<ElfW(Addr)>(slot) >= relro_begin && reinterpret_cast<ElfW(Addr)>(slot) < relro_end;
      void *const  previous  = *slot;
      if (!WriteSlot(slot, s->replacement, read_only)) {
        s->error = std::string("cannot make the read-only (RELRO) call slot of ") + s->symbol + " in " + (info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "the program") + " writable (mprotect failed)";
        return 1;
      }
      s->r->slots.push_back(slot);
      s->r->previous.push_back(previous);
      s->r->read_only.push_back(read_only);
    }
  }
  return 0;
}

} // namespace

int PltRedirect(const char *symbol, void *replacement, PltRedirection *r, std::string *why)
{
  Search            s{symbol, replacement, reinterpret_cast<const void *>(&PltRedirect), r, 0, {}};
  const std::size_t before = r->slots.size();
  dl_iterate_phdr(Visit, &s);
  if (!s.error.empty()) throw std::runtime_error(s.error);
  const int found = static_cast<int>(r->slots.size() - before);
  if (!found)
    *why = std::string("no call of ") + symbol + " through a procedure linkage table in the " + std::to_string(s.objects) +
           " loaded objects that have one (a library built with -fno-plt, -Bsymbolic, hidden symbols or link-time optimisation, or linked statically, binds its calls directly)";
  return found;
}

void PltRestore(PltRedirection *r) noexcept
{
  for (std::size_t k = r->slots.size(); k-- > 0;) WriteSlot(r->slots[k], r->previous[k], r->read_only[k]);
  r->slots.clear();
  r->previous.clear();
  r->read_only.clear();
}

#else

int PltRedirect(const char *, void *, PltRedirection *, std::string *why)
{
  *why = "call redirection is implemented for ELF on x86-64 and AArch64 only";
  return 0;
}

void PltRestore(PltRedirection *) noexcept { }

#endif
