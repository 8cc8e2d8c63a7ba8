# bench/realprograms/loggen.awk: deterministic log-like text, the zstd workload of run.sh.
#
#   awk -v target=BYTES -f loggen.awk > FILE
#
# Writes whole lines until at least BYTES bytes: web-server-like access log lines (date,
# level, worker, method, path, user, status, sizes, durations, a request id). A Park-Miller
# generator (products below 2^53, so exact in awk's doubles: mawk and gawk give the same
# bytes) makes every run and every machine produce the same file; run.sh prints its sha256.
BEGIN {
  if (target <= 0) target = 4194304
  seed = 20261128
  split("INFO INFO INFO INFO DEBUG DEBUG WARN ERROR", level, " ")
  split("GET GET GET POST PUT DELETE", method, " ")
  split("/api/v1/items /api/v1/users /api/v1/orders /static/app.js /static/style.css /healthz /api/v2/search /login", path, " ")
  split("alice bob carol dave erin frank grace heidi", user, " ")
  split("ok ok ok ok timeout refused reset", upstream, " ")
  t = 1700000000; bytes = 0
  while (bytes < target) {
    # One value per statement: the order in which awk evaluates a call's arguments is not
    # specified, and the sequence must not depend on the awk.
    t += r(3); msec = r(1000); lv = level[r(8) + 1]; worker = r(16); me = method[r(6) + 1]
    pa = path[r(8) + 1]; id = r(100000); us = user[r(8) + 1]; status = (r(10) < 8) ? 200 : 404 + r(100)
    size = r(65536); dur = r(2000); up = upstream[r(7) + 1]; req = r(2147483647)
    line = sprintf("2023-11-%02d %02d:%02d:%02d.%03d %-5s [worker-%d] %s %s/%d user=%s status=%d bytes=%d dur_ms=%d upstream=%s req=%08x",
      14 + int(t / 86400) % 14, int(t / 3600) % 24, int(t / 60) % 60, t % 60, msec, lv, worker, me, pa, id, us,
      status, size, dur, up, req)
    print line
    bytes += length(line) + 1
  }
}
function r(k) { seed = (seed * 16807) % 2147483647; return seed % k }
