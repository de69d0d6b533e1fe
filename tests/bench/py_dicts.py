# Workload (b): 300k small dicts round-tripped through json.
import json
out = []
for i in range(300000):
    d = {"id": i, "name": "item%d" % i, "tags": ["a", "b", str(i % 7)]}
    out.append(json.loads(json.dumps(d)))
print(len(out))
