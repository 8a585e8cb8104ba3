/* Every rank checks that it runs where the launch file put it: on the fake
 * host (FAKE_HOST, set by the stand-in remote shell) and bound to exactly the
 * CPUs of the cores (or PUs) that the csv mapping names. hwloc turns logical
 * indices into CPU sets independently of rankmap.
 * Built with -DNO_MPI for srun, which starts plain processes: the rank is
 * SLURM_PROCID and the host SLURMD_NODENAME, and each rank reports alone.
 * The MPI program first passes 64 KiB around a ring of ranks ten times, so
 * that a profile of it has traffic to map (rankmap run's first run): to
 * rank + CHECK_STRIDE (default 1), so that block is not always best.
 * Usage: check_placement MAPPING.csv [--if-mapped]
 *   --if-mapped: a missing csv (no mapping yet: the profiling run) is
 *   reported as "no mapping to check yet" and passes.
 * With CHECK_EXIT=N set, every rank exits with status N after the check
 * (to see a launcher pass a failing job's status through); with
 * CHECK_SLEEP=S, it sleeps S seconds first (to be stopped by a signal). */
#include <hwloc.h>
#ifndef NO_MPI
#include <mpi.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check(int rank, const char* csv, char* why, size_t whylen) {
  FILE* f = fopen(csv, "r");
  if (!f) return snprintf(why, whylen, "cannot open %s", csv), 0;
  char line[256], host[128] = "", core[32] = "", pu[32] = "";
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    int r;
    char h[128], s[16], c[32], p[32] = "";
    /* rank,host,socket,core,pu (pu may be empty) */
    if (sscanf(line, "%d,%127[^,],%15[^,],%31[^,\n],%31[^\n]", &r, h, s, c, p) >= 4 && r == rank) {
      strcpy(host, h), strcpy(core, c), strcpy(pu, p), found = 1;
      break;
    }
  }
  fclose(f);
  if (!found) return snprintf(why, whylen, "rank %d not in %s", rank, csv), 0;

#ifdef NO_MPI
  const char* fake = getenv("SLURMD_NODENAME");
#else
  const char* fake = getenv("FAKE_HOST");
#endif
  if (!fake || strcmp(fake, host) != 0)
    return snprintf(why, whylen, "on host %s, expected %s", fake ? fake : "(unset)", host), 0;

  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  /* The union of the listed cores (or PUs): "3", or a rank of several
   * (--cpus-per-rank, a --ppn below the cores) as "0-5" or "0;2-3". */
  const char* list = pu[0] ? pu : core;
  const hwloc_obj_type_t type = pu[0] ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
  hwloc_bitmap_t want = hwloc_bitmap_alloc(), bound = hwloc_bitmap_alloc();
  int known = 1;
  for (const char* at = list; *at && known;) {
    char* end;
    const long first = strtol(at, &end, 10);
    long last = first;
    if (*end == '-') last = strtol(end + 1, &end, 10);
    for (long i = first; i <= last && known; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, (unsigned)i);
      if (obj) hwloc_bitmap_or(want, want, obj->cpuset);
      known = obj != NULL;
    }
    known = known && (*end == ';' || *end == 0);
    at = *end == ';' ? end + 1 : end;
  }
  hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS);
  int ok = known && hwloc_bitmap_isequal(bound, want);
  if (!ok) {
    char wanted[64] = "?", have[64];
    if (known) hwloc_bitmap_list_snprintf(wanted, sizeof wanted, want);
    hwloc_bitmap_list_snprintf(have, sizeof have, bound);
    snprintf(why, whylen, "bound to CPUs %s, expected %s (core %s pu %s)", have, wanted, core, pu);
  }
  hwloc_bitmap_free(want);
  hwloc_bitmap_free(bound);
  hwloc_topology_destroy(topo);
  return ok;
}

#ifdef NO_MPI
int main(int argc, char** argv) {
  const char* id = getenv("SLURM_PROCID");
  const int rank = id ? atoi(id) : -1;
  char why[256] = "";
  const int ok = id && argc > 1 && check(rank, argv[1], why, sizeof why);
  if (!ok)
    fprintf(stderr, "rank %d: %s\n", rank, why);
  else
    printf("rank %d: on %s as the file says\n", rank, getenv("SLURMD_NODENAME"));
  return ok ? 0 : 1;
}
#else
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static char out[1 << 16], in[1 << 16];
  const int stride = getenv("CHECK_STRIDE") ? atoi(getenv("CHECK_STRIDE")) % size : 1;
  for (int i = 0; i < 10; ++i)
    MPI_Sendrecv(out, sizeof out, MPI_CHAR, (rank + stride) % size, 0, in, sizeof in, MPI_CHAR,
                 (rank + size - stride) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  char why[256] = "";
  const int if_mapped = argc > 2 && strcmp(argv[2], "--if-mapped") == 0;
  FILE* csv = argc > 1 ? fopen(argv[1], "r") : NULL;
  const int unmapped = if_mapped && !csv;
  if (csv) fclose(csv);
  int ok = unmapped || (argc > 1 && check(rank, argv[1], why, sizeof why));
  if (!ok)
    fprintf(stderr, "rank %d: %s\n", rank, why);
  else if (!unmapped)
    printf("rank %d: on %s as the file says\n", rank, getenv("FAKE_HOST"));
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0 && unmapped) printf("no mapping to check yet: %d ranks\n", size);
  if (rank == 0 && !unmapped) printf("%s: %d ranks checked\n", all_ok ? "placement ok" : "placement WRONG", size);
  if (getenv("CHECK_SLEEP")) sleep((unsigned)atoi(getenv("CHECK_SLEEP")));
  MPI_Finalize();
  if (getenv("CHECK_EXIT")) return atoi(getenv("CHECK_EXIT"));
  return all_ok ? 0 : 1;
}
#endif
