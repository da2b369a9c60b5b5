set -e
B=/tmp/cqrss3
SP=$(echo /work/wt/cqrss3/.venv/lib/python3*/site-packages)
V=/root/.pyenv/versions
# (site-packages is copied as `sitepkgs`: code-scan skips a directory named site-packages as vendored)
mk() { # dest, then src:name pairs
  d=$1; shift; rm -rf $d; mkdir -p $d
  for p in "$@"; do src=${p%%:*}; name=${p##*:}; cp -r "$src" "$d/$name"; done
  cd $d
  find . -name __pycache__ -prune -exec rm -rf {} + ; find . -name '*.pyc' -delete
  find . -path './py3*/site-packages' -prune -exec rm -rf {} +
  find . -type l -delete
  find . -type f -size +2M -delete
  python3 - <<'PY'
import os
for top, dirs, files in os.walk('.'):
    for f in files:
        p = os.path.join(top, f)
        with open(p, 'rb') as h:
            if b'\0' in h.read(8192):
                os.unlink(p)
PY
  find . -type d -empty -delete
  git init -q . && git add -A && git -c user.email=b@b -c user.name=bench commit -qm corpus
  echo "$d $(git rev-parse --short HEAD) $(git ls-files | wc -l) files $(du -sm --exclude=.git . | cut -f1) MB"
}
mk $B/stdlib $V/3.11.7/lib/python3.11:py311
mk $B/c7k $V/3.8.18/lib/python3.8:py38 $V/3.9.18/lib/python3.9:py39 $V/3.10.13/lib/python3.10:py310
mk $B/c20k /usr/include:include $V/3.8.18/lib/python3.8:py38 $V/3.9.18/lib/python3.9:py39 $V/3.10.13/lib/python3.10:py310 $V/3.12.1/lib/python3.12:py312 $V/3.13.0/lib/python3.13:py313
mk $B/c50k $SP:sitepkgs /usr/include:include $V/3.8.18/lib/python3.8:py38 $V/3.9.18/lib/python3.9:py39 $V/3.10.13/lib/python3.10:py310 $V/3.12.1/lib/python3.12:py312 $V/3.13.0/lib/python3.13:py313
