# Reader waits on artrie page locks, from a server log with the
# measurement-only wait log (branch lat11-waits): by page class and holder.
/artrie-vacuum roots keys=/ { match($0, /keys=[0-9]+/); root[substr($0, RSTART + 5, RLENGTH - 5)] = 1 }
/artrie-wait page=/ {
	match($0, /page=[0-9]+/); pg = substr($0, RSTART + 5, RLENGTH - 5)
	match($0, /stubs=[0-9]+/); st = substr($0, RSTART + 6, RLENGTH - 6) + 0
	match($0, /tag=[0-9]+/); tg = substr($0, RSTART + 4, RLENGTH - 4) + 0
	match($0, /us=[0-9]+/); us = substr($0, RSTART + 3, RLENGTH - 3) + 0
	cls = (pg in root) ? "root" : (st > 0 ? "level2(stubs)" : "bottom")
	what = tg == 1 ? "delete-run" : tg == 2 ? "delete-rootX" : tg == 3 ? "merge" : tg == 4 ? "merge-rootX" : tg == 5 ? "relayout-rootX" : tg == 6 ? "delete-counts" : "other(" tg ")"
	k = cls "\t" what; n[k]++; sum[k] += us; if (us > mx[k]) mx[k] = us
	N++; S += us
}
END {
	printf "class\tholder\twaits\ttotal_ms\tavg_us\tmax_ms\n"
	for (k in n) printf "%s\t%d\t%.1f\t%.0f\t%.2f\n", k, n[k], sum[k] / 1000, sum[k] / n[k], mx[k] / 1000
	printf "all\t-\t%d\t%.1f\n", N, S / 1000
}
