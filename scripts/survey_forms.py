#!/usr/bin/env python3
"""Which strategies each convolution form gets, and why the others do not (issue 38's generality).

For every program in the forms folder (examples/conv/forms: one convolution written in one of
many correct ways each) and every strategy named, runs `liftc space FORM -s STRATEGY --samples 0`
and sorts the pair into one of:
  - offered: the strategy rewrites the form and its space has valid points on the target;
  - refused: liftc says the strategy does not apply and names the step that applies nowhere
    with a description of what that step needs (`(its step `STEP` applies nowhere: ...`);
  - empty: the strategy rewrites the form but no alternative has a valid point;
  - other: any other answer (a crash, an error without a reason, a timeout).
Prints a Markdown table (per form, its offered strategies), the refusals counted by step, the
forms no strategy named was offered to (with the first reason given), and the pairs of the last
two kinds, with their message. Exits 1 when a pair is empty or other: a form then gets neither a
strategy nor a reason in the user's terms.

Usage: survey_forms.py [--liftc PATH] [--forms DIR] [--jobs N] [STRATEGY|@TAG ...]
  strategies: by default the ones tagged fast in `liftc rules` and those of the depthwise kind
  (conv-depthwise-kappa, conv-depthwise-tile, conv-depthwise-local, and conv-dw-pw-private and
  conv-dw-pw-local for a depthwise layer fused with its pointwise one in one definition); @TAG
  names every strategy `liftc rules` lists with that tag.
The target is the first OpenCL device (PoCL on the build machine).
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIND_STRATEGIES = ["conv-depthwise-kappa", "conv-depthwise-tile", "conv-depthwise-local", "conv-dw-pw-private", "conv-dw-pw-local"]
REFUSAL = re.compile(r"does not apply to any definition of .*?\(its step `([^`]+)` applies nowhere: (.+)", re.S)


def tagged(liftc, tag):
    """The strategies `liftc rules` lists with TAG among their tags, in its order."""
    out = subprocess.run([liftc, "rules"], capture_output=True, text=True, check=True).stdout
    names = []
    for line in out.splitlines():
        m = re.match(r"\s*strategy (\S+) \[([^\]]*)\]:", line)
        if m and tag in [t.strip() for t in m.group(2).split(",")]:
            names.append(m.group(1))
    if not names:
        sys.exit(f"survey_forms.py: no strategy of `liftc rules` is tagged {tag}")
    return names


def survey(liftc, form, strategy):
    """(kind, detail) of one pair: offered (valid points), refused (step), empty or other (message)."""
    try:
        r = subprocess.run([liftc, "space", form, "-s", strategy, "--samples", "0"], capture_output=True,
                           text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "other", "no answer in 300 s"
    except OSError as e:  # liftc replaced or removed during the survey
        return "other", f"could not run {liftc}: {e.strerror}"
    text = r.stdout + r.stderr
    if r.returncode == 0:
        # per alternative, exact ("12 (exact)") or Knuth's estimate for a large space ("about 1.35e+06 (...)")
        points = sum(float(n) for n in re.findall(r"^valid points: (?:about )?([0-9.e+]+)", text, re.M))
        return ("offered", points) if points > 0 else ("empty", "no alternative has a valid point")
    m = REFUSAL.search(text)
    need = m.group(2).strip() if m else ""
    if r.returncode == 1 and need and not need.startswith(")"):  # a step named with nothing said of it is no reason
        return "refused", m.group(1)
    return "other", f"exit {r.returncode}: " + " ".join(text.strip().splitlines()[-3:])[:400]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--liftc", default=os.path.join(ROOT, "build", "liftc"))
    ap.add_argument("--forms", default=os.path.join(ROOT, "examples", "conv", "forms"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("strategies", nargs="*")
    a = ap.parse_args()
    if not os.access(a.liftc, os.X_OK):
        sys.exit(f"survey_forms.py: {a.liftc} is not an executable liftc (build it, or pass --liftc)")
    if not os.path.isdir(a.forms):
        sys.exit(f"survey_forms.py: {a.forms} is not a folder")
    named = a.strategies or ["@fast"] + KIND_STRATEGIES
    strategies = []
    for s in named:
        for name in tagged(a.liftc, s[1:]) if s.startswith("@") else [s]:
            if name not in strategies:
                strategies.append(name)
    forms = sorted(f for f in os.listdir(a.forms) if f.endswith(".sr"))
    if not forms:
        sys.exit(f"survey_forms.py: {a.forms} holds no .sr program")

    pairs = [(f, s) for f in forms for s in strategies]
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = dict(zip(pairs, pool.map(lambda p: survey(a.liftc, os.path.join(a.forms, p[0]), p[1]), pairs)))

    kinds = collections.Counter(kind for kind, _ in results.values())
    print(f"{len(forms)} forms x {len(strategies)} strategies ({', '.join(strategies)}): "
          f"{kinds['offered']} offered, {kinds['refused']} refused with a reason, "
          f"{kinds['empty']} without a valid point, {kinds['other']} other\n")
    print("| form | strategies offered |")
    print("| --- | --- |")
    for f in forms:
        offered = [s for s in strategies if results[(f, s)][0] == "offered"]
        print(f"| {f} | {', '.join(offered) if offered else 'none'} |")

    steps = collections.Counter(d for kind, d in results.values() if kind == "refused")
    print("\n| step that applies nowhere | refusals |")
    print("| --- | --- |")
    for step, n in steps.most_common():
        print(f"| `{step}` | {n} |")

    bare = [f for f in forms if all(results[(f, s)][0] != "offered" for s in strategies)]
    print(f"\nforms offered none of these strategies: {len(bare)}")
    for f in bare:
        first = next((d for s in strategies for k, d in [results[(f, s)]] if k == "refused"), "-")
        print(f"  {f}: first refusal at step `{first}`")
    bad = [(p, r) for p, r in results.items() if r[0] in ("empty", "other")]
    for (f, s), (kind, detail) in bad:
        print(f"{kind}: {f} with {s}: {detail}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
