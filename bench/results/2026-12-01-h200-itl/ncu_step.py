import csv,gzip,io,sys,collections
def load(f):
    txt=gzip.open(f,'rt').read()
    lines=[l for l in txt.splitlines() if l.startswith('"')]
    rows={}
    for x in csv.DictReader(io.StringIO("\n".join(lines))):
        d=rows.setdefault(int(x['ID']),{'name':x['Kernel Name'],'grid':x['Grid Size'],'block':x['Block Size']})
        d[x['Metric Name']]=float(x['Metric Value'].replace(',',''))
    return [rows[i] for i in sorted(rows)]
def short(n):
    import re
    n=n.replace('kwb::cuda::','').replace('tllm::','').replace('decode::','')
    n=re.sub(r'\(.*$','',n.split(' ',1)[-1] if n.startswith('void ') else n)
    return n[:60]
ks=load(sys.argv[1])
# find one step: from a set_lengths to the next
idx=[i for i,k in enumerate(ks) if 'set_lengths' in k['name']]
a,b=idx[-2],idx[-1]
step=ks[a:b]
tot=sum(k['gpu__time_duration.sum'] for k in step)
print("kernels in step",len(step),"kernel time us",round(tot/1000,1))
agg=collections.OrderedDict()
for k in step:
    n=short(k['name']); e=agg.setdefault(n,[0,0,0,k['grid']])
    e[0]+=1;e[1]+=k['gpu__time_duration.sum'];e[2]+=k['dram__bytes_read.sum']
for n,(c,t,by,g) in agg.items():
    print(f"{n:60s} x{c:3d} {t/1000:8.1f} us  {t/c/1000:6.2f} us each  {by/1e6:8.1f} MB  {by/t if t else 0:6.0f} GB/s grid {g}")
if len(sys.argv)>2:
    for k in step[:14]: print(short(k['name']), k['gpu__time_duration.sum']/1000, k['grid'], k['dram__bytes_read.sum']/1e6)
