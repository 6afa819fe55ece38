# summ.py DIR: one row per configuration and matrix from the sweep's JSON files
import json, glob, sys, os, collections
d = sys.argv[1]
rows = collections.OrderedDict()
for f in sorted([f for f in glob.glob(d + '/*.json') if f.count('.') >= 3], key=os.path.getmtime):
    name, mat, rep = os.path.basename(f)[:-5].rsplit('.', 2)
    try: j = json.load(open(f))
    except Exception: print('bad', f); continue
    a = j['precond_info']['amg']; deg = j['precond_info']['degree']
    rows.setdefault((name, mat), []).append((j['iterations'], j['time_setup'], j['time_solve'], a['operator_complexity'], a['grid_complexity'], len(a['levels']), deg, j['converged']))
print('%-28s %-18s %4s %6s %6s %3s %3s %8s %8s %8s %8s %6s %6s' % ('config','matrix','its','opcx','grid','lv','deg','setup1','setup2','solve1','solve2','spmv/it','tot_s'))
for (name, mat), v in rows.items():
    it, su, so, oc, gc, lv, deg, conv = v[0]
    s1 = ['%8.0f' % (x[1]*1e3) for x in v] + ['       -']*(2-len(v))
    s2 = ['%8.0f' % (x[2]*1e3) for x in v] + ['       -']*(2-len(v))
    est = oc * 2 * deg + 1
    tot = min(x[1] + x[2] for x in v)
    print('%-28s %-18s %4d %6.3f %6.3f %3d %3d %s %s %6.1f %6.2f%s' % (name, mat, it, oc, gc, lv, deg, ' '.join(s1), ' '.join(s2), est, tot, '' if conv else ' NOCONV'))
