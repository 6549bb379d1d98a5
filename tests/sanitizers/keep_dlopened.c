/* Linked into every executable of the sanitizer build (PCLUSTER_SANITIZE, see sanitizers.cmake).
 *
 * dlclose() does nothing, so the libraries loaded at run time stay mapped until the process exits:
 * Open MPI's components (unloaded by MPI_Finalize) and the plugin (unloaded by PetscFinalize when
 * it came in through -dll_append). LeakSanitizer then names the module behind each leaked block,
 * so lsan.supp can match third-party modules, and it scans those modules' globals for pointers.
 * Otherwise their frames print as "<unknown module>", which no suppression can match and which
 * would hide the plugin's own leaks as well. */
int dlclose(void *handle)
{
  (void)handle;
  return 0;
}
