import json, sys
r = sys.argv[1]
rows = json.load(open(f'{r}/bench-decode.json'))['decode']
res = {}
for x in rows:
    if 'params' not in x or 'gbs' not in x: continue
    p = x['params']; g = x['gbs']
    k = (p['context'], p['batch'], p['impl'], p['splits'], p['stages'], p['page_size'], p['pdl'])
    res[k] = (round(g['median']), round(g['min']), round(g['max']), x.get('metrics', {}).get('splits'))
tor = {}
for f in ('torch-attention-1.json', 'torch-attention.json'):
    try:
        for t in json.load(open(f'{r}/{f}'))['rows']:
            if 'batch' in t and 'rate' in t: tor.setdefault((t['context'], t['batch']), []).append(round(t['rate']['median']))
    except Exception as e: print(f, e)
for ctx in (1024, 8192, 32768):
    for b in (1, 64):
        best = sorted(((v[0], k, v) for k, v in res.items() if k[0] == ctx and k[1] == b), reverse=True)[:4]
        print(ctx, b, 'torch', tor.get((ctx, b)), 'best', [(k[2:], v) for _, k, v in best])
        print('   auto', [(k[2:], v) for k, v in res.items() if k[0] == ctx and k[1] == b and k[3] == 0])
        print('   pdl0', [(k[2:], v) for k, v in res.items() if k[0] == ctx and k[1] == b and k[6] == 0])
