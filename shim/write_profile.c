/* The .rmp file (format: docs/profile-format.md). Rank 0 writes the header
 * and then asks each rank in turn for its own lines, so that no rank ever
 * holds more than its own peers' counts: the whole matrix is never gathered.
 * The file is written under a temporary name and renamed when complete; a
 * job that dies before MPI_Finalize leaves no profile, not a broken one. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "write_profile.h"

static const char* const kind_names[RM_KINDS] = {"p2p", "coll", "rma"};
enum { TAG_GO = 7101, TAG_LEN, TAG_DATA };
enum { PIECE = 1 << 28 }; /* bytes per message when a rank's lines are long */

typedef struct {
  char* data;
  size_t len, cap;
  int failed;
} text;

static void append(text* t, const char* fmt, ...) {
  if (t->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(t->data ? t->data + t->len : NULL, t->data ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      t->failed = 1;
      return;
    }
    if (t->data && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    const size_t cap = (t->cap + (size_t)n + 1) * 2;
    char* d = realloc(t->data, cap);
    if (!d) {
      t->failed = 1;
      return;
    }
    t->data = d;
    t->cap = cap;
  }
}

static void own_lines(text* t, int rank, const rm_peer* peers, size_t n, const rm_call_table* calls, double wall_s,
                      double mpi_s) {
  char host[MPI_MAX_PROCESSOR_NAME] = "unknown";
  int len = 0;
  if (PMPI_Get_processor_name(host, &len) != MPI_SUCCESS) strcpy(host, "unknown");
  for (char* c = host; *c; ++c)
    if (*c == ' ' || *c == '\t' || *c == '\n') *c = '_';
  append(t, "rank %d host %s wall_s %.6f mpi_s %.6f\n", rank, host, wall_s, mpi_s);
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < RM_KINDS; ++k)
      if (peers[i].msgs[k] || peers[i].bytes[k])
        append(t, "%s %d %llu %llu\n", kind_names[k], peers[i].world, (unsigned long long)peers[i].bytes[k],
               (unsigned long long)peers[i].msgs[k]);
  /* Collective calls: each group, then its sends by round and peer. */
  if (!calls->complete) append(t, "calls_complete 0\n");
  size_t at = 0;
  for (int g = 0; g < calls->group_count; ++g) {
    const rm_call_group* group = &calls->groups[g];
    append(t, "call %s %d %llu %llu\n", group->algorithm, group->slot, (unsigned long long)group->calls,
           (unsigned long long)group->first);
    for (; at < calls->step_count && calls->steps[at].group == g; ++at)
      append(t, "step %d %d %llu %llu\n", calls->steps[at].round, calls->steps[at].world,
             (unsigned long long)calls->steps[at].bytes, (unsigned long long)calls->steps[at].msgs);
  }
}

static void header(text* t, int ranks, double wall_max, double wall_sum, double mpi_sum, int incomplete) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "unknown";
  int len = 0, major = 0, minor = 0;
  if (PMPI_Get_library_version(lib, &len) != MPI_SUCCESS) strcpy(lib, "unknown");
  lib[strcspn(lib, "\r\n")] = '\0';
  for (char* c = lib; *c; ++c)
    if (*c == '\t') *c = ' ';
  PMPI_Get_version(&major, &minor);
  append(t,
         "rankmap-profile 2\n"
         "mpi_library %s\n"
         "mpi_version %d.%d\n"
         "ranks %d\n"
         "wall_s %.6f\n"
         "p_mpi %.6f\n"
         "incomplete_ranks %d\n",
         lib, major, minor, ranks, wall_max, wall_sum > 0 ? mpi_sum / wall_sum : 0.0, incomplete);
}

static void profile_path(char* out, size_t size) {
  const char* env = getenv("RANKMAP_PROFILE");
  if (env && *env) {
    snprintf(out, size, "%s", env);
    return;
  }
  const char* job = getenv("SLURM_JOB_ID");
  if (!job || !*job) job = getenv("PBS_JOBID");
  if (job && *job)
    snprintf(out, size, "rankmap-%s.rmp", job);
  else
    snprintf(out, size, "rankmap-%ld.rmp", (long)getpid());
}

static int send_text(MPI_Comm c, const text* t) {
  unsigned long long len = t->failed ? 0 : t->len;
  if (PMPI_Send(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, TAG_LEN, c) != MPI_SUCCESS) return -1;
  for (size_t at = 0; at < len; at += PIECE) {
    const int piece = (int)(len - at < PIECE ? len - at : PIECE);
    if (PMPI_Send(t->data + at, piece, MPI_CHAR, 0, TAG_DATA, c) != MPI_SUCCESS) return -1;
  }
  return 0;
}

/* Receives rank r's lines into buf (reused) and writes them to f (if any). */
static int relay(MPI_Comm c, int r, text* buf, FILE* f, int* missing) {
  int go = 1;
  unsigned long long len = 0;
  if (PMPI_Send(&go, 1, MPI_INT, r, TAG_GO, c) != MPI_SUCCESS) return -1;
  if (PMPI_Recv(&len, 1, MPI_UNSIGNED_LONG_LONG, r, TAG_LEN, c, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
  if (len == 0) *missing = 1;
  if (len > buf->cap) {
    char* d = realloc(buf->data, len);
    if (!d) return -1;
    buf->data = d;
    buf->cap = len;
  }
  for (size_t at = 0; at < len; at += PIECE) {
    const int piece = (int)(len - at < PIECE ? len - at : PIECE);
    if (PMPI_Recv(buf->data + at, piece, MPI_CHAR, r, TAG_DATA, c, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
  }
  if (f && fwrite(buf->data, 1, len, f) != len) return -2;
  return 0;
}

void rm_write_profile(const rm_peer* peers, size_t n, const rm_call_table* calls, double wall_s, double mpi_s,
                      int dropped) {
  MPI_Comm c;
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS) return;
  PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  PMPI_Comm_rank(c, &rank);
  PMPI_Comm_size(c, &size);
  double local[3] = {wall_s, mpi_s, (double)dropped}, sum[3] = {0, 0, 0}, wall_max = 0;
  PMPI_Reduce(local, sum, 3, MPI_DOUBLE, MPI_SUM, 0, c);
  PMPI_Reduce(&wall_s, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, c);

  text mine = {0};
  own_lines(&mine, rank, peers, n, calls, wall_s, mpi_s);
  if (rank != 0) {
    int go = 0;
    if (PMPI_Recv(&go, 1, MPI_INT, 0, TAG_GO, c, MPI_STATUS_IGNORE) == MPI_SUCCESS) send_text(c, &mine);
    free(mine.data);
    PMPI_Comm_free(&c);
    return;
  }

  char path[4096], tmp[4200];
  profile_path(path, sizeof path);
  const char* problem = NULL;
  int err = 0;
  FILE* f = NULL;
  /* Never through a symlink or onto a device (RANKMAP_PROFILE=/dev/full),
   * and under a temporary name nobody can guess or plant: mkstemp. */
  struct stat st;
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    problem = S_ISLNK(st.st_mode) ? "will not replace the symbolic link" : "will not replace the non-file";
  } else {
    snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path);
    const int fd = mkstemp(tmp);
    if (fd < 0) {
      problem = "cannot create", err = errno;
    } else {
      const mode_t mask = umask(0);
      umask(mask);
      fchmod(fd, 0666 & ~mask);
      f = fdopen(fd, "w");
      if (!f) problem = "cannot create", err = errno, close(fd), unlink(tmp);
    }
  }
  text head = {0};
  header(&head, size, wall_max, sum[0], sum[1], (int)sum[2]);
  if (f && (head.failed || mine.failed || fwrite(head.data, 1, head.len, f) != head.len ||
            fwrite(mine.data, 1, mine.len, f) != mine.len))
    problem = "cannot write", err = errno;
  /* Every rank waits for its turn, so every rank is asked even when the
   * file has failed: none may be left waiting. */
  text buf = {0};
  int missing = 0;
  for (int r = 1; r < size; ++r) {
    const int rc = relay(c, r, &buf, problem ? NULL : f, &missing);
    if (rc == -2 && !problem) problem = "cannot write", err = errno;
    if (rc == -1 && !problem) problem = "lost a rank's counts while writing";
  }
  if (missing && !problem) problem = "ran out of memory for a rank's counts in";
  if (f) {
    if (!problem && fputs("end\n", f) < 0) problem = "cannot write", err = errno;
    if (fclose(f) != 0 && !problem) problem = "cannot write", err = errno;
    if (!problem && rename(tmp, path) != 0) problem = "cannot rename the finished profile to", err = errno;
    if (problem) unlink(tmp);
  }
  if (problem)
    fprintf(stderr, "rankmap shim: %s %s%s%s; the job goes on without a profile\n", problem, path, err ? ": " : "",
            err ? strerror(err) : "");
  free(head.data);
  free(buf.data);
  free(mine.data);
  PMPI_Comm_free(&c);
}
