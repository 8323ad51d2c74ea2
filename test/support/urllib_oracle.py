# The oracle of test/real-cli/urllib-differential.test.ts: CPython's urllib as botocore uses it
# (get_environ_proxies: proxy_bypass_environment on the netloc, then getproxies_environment()[scheme]).
# Reads JSON cases on stdin: env as an ordered list of [name, value], destinations as [scheme, netloc].
# Answers per destination: true when SOME environment order gives a proxy. No network: only environment functions.
import itertools, json, os, sys, urllib.request as r
cases = json.load(sys.stdin)
out = []
for case in cases:
    env = case["env"]
    res = []
    for scheme, netloc in case["dests"]:
        any_proxy = False
        perms = itertools.permutations(env) if len(env) <= 5 else [env]
        for perm in perms:
            os.environ.clear()
            for k, v in perm:
                os.environ[k] = v
            if r.proxy_bypass_environment(netloc):
                continue
            if r.getproxies_environment().get(scheme):
                any_proxy = True
                break
        res.append(any_proxy)
    out.append(res)
json.dump(out, sys.stdout)
