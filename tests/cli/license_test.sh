#!/bin/sh
# The project's license is stated where users and packagers look for it.
set -eu
root="$1"
fail() { echo "license_test: $1" >&2; exit 1; }
grep -q '^MIT License$' "$root/LICENSE" || fail "LICENSE is missing or not the MIT license"
grep -q '<project_license>MIT</project_license>' "$root/packaging/linux/io.github.syncscope.Syncscope.metainfo.xml" ||
  fail "the AppStream metainfo has no <project_license>MIT</project_license>"
awk '/^Files: \*$/{f=1;next} f&&/^License:/{print $2; exit}' "$root/packaging/linux/copyright" | grep -qx Expat ||
  fail "debian/copyright does not give Files: * the Expat (MIT) license"
grep -q 'MIT License' "$root/resources/demo/ATTRIBUTION.md" || fail "the demo trace lost its own attribution"
grep -q 'released under the MIT License' "$root/README.md" || fail "the README does not name the license"
echo "license_test: ok"
