import re,collections,sys
aw = re.compile(r'^\s*([\d.]+) \[(\d+)\]\s+(\S+?)(?:\[(\d+)(?:/(\d+))?\])?\s+awakened: (\S+?)\[(\d+)(?:/(\d+))?\]')
c=collections.Counter()
for l in open(sys.argv[1]):
    m=aw.match(l)
    if m: c[(m.group(3),m.group(4),m.group(6),m.group(7))]+=1
acc=max((k for k in c if k[0]=='dotnet' and k[2].startswith('fix-receive')), key=c.get)
ini=max((k for k in c if k[1]==acc[3] and k[2].startswith('fix-receive')), key=c.get)
print(acc[3], ini[3])
