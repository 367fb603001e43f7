#!/usr/bin/env bash
# make test-versions: build each PostgreSQL major that Debian's (or, where
# Debian's files are not served, Ubuntu's) archive has a source package of,
# into a cache outside the tree, then build chash against each with
# PG_CONFIG and run every suite of make test that can run there.  Prints
# one table: version, build, suites passed and failed.  Not run per major:
# compat, compat_servers, compat_redis and migrate_mysql (what they check of
# chash does not depend on the server; the profiles suite runs the import on
# each) and package (Debian's packaging knows only the majors installed as
# packages); release leaves out make dist, which needs git.  On 14 to 16,
# REGRESS, ISOLATION, churn, crash and standby run a second time without
# shared_preload_libraries (SUITE_without_preload), where rings cannot be
# shared across backends.
#
#   test/bin/versions.sh [MAJOR...]        default: every major of the table
#
# CHASH_PG_CACHE    the cache (default /var/cache/chash-pg as root, else
#                   ~/.cache/chash-pg); a major's build is reused as long
#                   as its archive serves the same version, and when the
#                   archive cannot be reached
# CHASH_PG_JOBS     make -j for PostgreSQL's build (default: CPUs)
#
# Archive indexes are checked as apt checks them: InRelease signed by the
# archive's key (Debian's keyring from debian-archive-keyring; Ubuntu's from
# its ubuntu-keyring package, whose SHA-256 is pinned below), Sources.xz by
# the hash InRelease gives, the tarball by the hash Sources.xz gives.  The
# upstream tarball of the source package is built as it is: Debian's patches
# change packaging paths, not what an extension sees.
set -euo pipefail
cd "$(dirname "$0")/../.."
# the suites not run per major (above)
per_major_skip="compat compat_servers compat_redis migrate_mysql package"

# major: source packages to try, in order; the first whose files are served
# wins.  "archive:suite": debian and debian-security are the archives of
# those labels in apt's own configuration on this machine (apt-get
# indextargets), so that its mirror or proxy is used; ubuntu is the mirror
# that CHASH_UBUNTU_MIRROR names (doc/versions.md).  An archive with no
# address is skipped, with a line that says so.
# 14 and 16 are in no Debian suite of today; 17's files are listed by trixie
# but not served (and neither are questing-updates' 17.10).  13 (bullseye)
# is not supported: chash builds there but does not load.
declare -A candidates=(
	[14]="ubuntu:jammy-updates ubuntu:jammy-security ubuntu:jammy"
	[15]="debian-security:bookworm-security debian:bookworm"
	[16]="ubuntu:noble-updates ubuntu:noble-security ubuntu:noble"
	[17]="debian-security:trixie-security debian:trixie ubuntu:questing-updates ubuntu:questing"
	[18]="debian:sid ubuntu:resolute-updates ubuntu:resolute"
	# 19: Debian's experimental lists 19~beta2 and 19~rc1 but served no
	# tarball when this was written (2026-12-04); the first that serves wins
	[19]="debian:sid debian:experimental"
)
majors=("${@:-14 15 16 17 18 19}")
read -r -a majors <<<"${majors[*]}"

ubuntu_keyring_deb=pool/main/u/ubuntu-keyring/ubuntu-keyring_2023.11.28.1_all.deb
ubuntu_keyring_sha256=36de43b15853ccae0028e9a767613770c704833f82586f28eb262f0311adb8a8

if [ "$(id -u)" -eq 0 ]; then
	cache=${CHASH_PG_CACHE:-/var/cache/chash-pg}
else
	cache=${CHASH_PG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chash-pg}
fi
jobs=${CHASH_PG_JOBS:-$(nproc)}
mkdir -p "$cache"
chmod 755 "$cache"

# what building PostgreSQL needs beyond make test's own packages: bison and
# flex (tarballs of 17 and later carry no generated parsers), gpgv, xz; and
# debootstrap for majors served only as binary packages (below)
test/bin/setup.sh
test/bin/apt-install.sh test-versions bison flex gpgv xz-utils debootstrap

say() { echo "test-versions: $*" >&2; }

# the address of the archive of that apt label, as this machine's apt
# sources give it
apt_archive() {
	apt-get indextargets --format '$(LABEL) $(REPO_URI)' 2>/dev/null |
		awk -v label="$1" '$1 == label { sub("/$", "", $2); print $2; exit }'
}

base_url() {
	local url label
	case $1 in
	debian) label=Debian ;;
	debian-security) label=Debian-Security ;;
	esac
	if [ "$1" = ubuntu ]; then
		url=${CHASH_UBUNTU_MIRROR:-}
		[ -n "$url" ] || say "ubuntu: skipped, CHASH_UBUNTU_MIRROR is not set (see doc/versions.md)"
	else
		url=$(apt_archive "$label")
		[ -n "$url" ] || say "$1: skipped, apt's sources on this machine name no archive labelled $label (run apt-get update)"
	fi
	[ -n "$url" ] || return 1
	echo "${url%/}"
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

keyring_for() {
	case $1 in
	debian | debian-security) echo /usr/share/keyrings/debian-archive-keyring.gpg ;;
	ubuntu)
		local kr=$cache/keys/ubuntu-archive-keyring.gpg
		if [ ! -s "$kr" ]; then
			mkdir -p "$cache/keys"
			curl -fsS -m 120 -o "$cache/keys/ubuntu-keyring.deb" \
				"$(base_url ubuntu)/$ubuntu_keyring_deb" || return 1
			[ "$(sha256_of "$cache/keys/ubuntu-keyring.deb")" = "$ubuntu_keyring_sha256" ] || {
				say "ubuntu-keyring.deb does not have the pinned SHA-256"
				return 1
			}
			rm -rf "$cache/keys/x"
			dpkg-deb -x "$cache/keys/ubuntu-keyring.deb" "$cache/keys/x"
			cp "$cache/keys/x/usr/share/keyrings/ubuntu-archive-keyring.gpg" "$kr"
			rm -rf "$cache/keys/x"
		fi
		echo "$kr"
		;;
	esac
}

# find MAJOR's source tarball in ARCHIVE:SUITE; prints "version url sha256"
find_source() {
	local major=$1 archive=${2%%:*} suite=${2#*:} dir
	local url keyring
	url=$(base_url "$archive") || return 1
	keyring=$(keyring_for "$archive") || return 1
	dir=$(mktemp -d "$cache/index.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$dir'" RETURN
	curl -fsS -m 60 -o "$dir/InRelease" "$url/dists/$suite/InRelease" || return 1
	gpgv --keyring "$keyring" --output "$dir/Release" "$dir/InRelease" 2>"$dir/gpgv.log" || {
		say "$archive $suite: InRelease is not signed by the archive's key"
		cat "$dir/gpgv.log" >&2
		return 1
	}
	local want
	want=$(awk '/^SHA256:/{s=1; next} /^[^ ]/{s=0} s && $3 == "main/source/Sources.xz" {print $1}' "$dir/Release")
	[ -n "$want" ] || return 1
	curl -fsS -m 300 -o "$dir/Sources.xz" "$url/dists/$suite/main/source/Sources.xz" || return 1
	[ "$(sha256_of "$dir/Sources.xz")" = "$want" ] || {
		say "$archive $suite: Sources.xz does not match InRelease"
		return 1
	}
	xzcat "$dir/Sources.xz" | awk -v pkg="postgresql-$major" -v url="$url" '
		/^Package: / { p = $2; v = ""; d = ""; f = ""; h = "" }
		p == pkg && /^Version: / { v = $2 }
		p == pkg && /^Directory: / { d = $2 }
		p == pkg && /^Checksums-Sha256:/ { s = 1; next }
		/^[^ ]/ { s = 0 }
		p == pkg && s && $3 ~ /\.orig\.tar\.(gz|bz2|xz)$/ { f = $3; h = $1 }
		/^$/ && p == pkg && f != "" { print v, url "/" d "/" f, h; p = "" }
		END { if (p == pkg && f != "") print v, url "/" d "/" f, h }' | sort -V | tail -n 1
}

# download and unpack MAJOR's source into $cache/MAJOR/src-VERSION; prints
# the version
fetch_source() {
	local major=$1 c found version tarball_url sha tarball
	for c in ${candidates[$major]}; do
		found=$(find_source "$major" "$c") || found=
		[ -n "$found" ] || continue
		read -r version tarball_url sha <<<"$found"
		version=${version%%-*}
		if [ -x "$cache/$major/$version/bin/pg_config" ]; then
			echo "$version ${c}"
			return 0
		fi
		tarball=$cache/$major/${tarball_url##*/}
		mkdir -p "$cache/$major"
		if [ ! -s "$tarball" ] || [ "$(sha256_of "$tarball")" != "$sha" ]; then
			say "$major: downloading $tarball_url"
			curl -fsS -m 1200 -o "$tarball.part" "$tarball_url" || {
				say "$major: $c lists $version but does not serve it"
				rm -f "$tarball.part"
				continue
			}
			[ "$(sha256_of "$tarball.part")" = "$sha" ] || {
				say "$major: $tarball_url does not match its index"
				rm -f "$tarball.part"
				continue
			}
			mv "$tarball.part" "$tarball"
		fi
		echo "$version ${c}"
		return 0
	done
	return 1
}

# configure, build and install one major into $cache/MAJOR/VERSION, with
# assertions on (an extension's mistakes then fail loudly)
build_postgres() {
	local major=$1 version=$2 prefix=$cache/$1/$2 work=$cache/$1/build-$2 start
	[ -x "$prefix/bin/pg_config" ] && return 0
	start=$(date +%s)
	rm -rf "$work" "$prefix"
	mkdir -p "$work"
	tar -xf "$cache/$major"/postgresql-"$major"_"$version".orig.tar.* -C "$work" --strip-components=1
	say "$major: building PostgreSQL $version in $work (log: $work/build.log)"
	(
		cd "$work"
		# PostgreSQL makes its generated headers only in a make at level 0:
		# run from make test-versions, this make must not look like a sub-make
		unset MAKELEVEL MAKEFLAGS MFLAGS
		./configure --prefix="$prefix" --enable-cassert --enable-debug \
			--without-readline --without-icu --with-zlib
		make -j"$jobs"
		make install
		for d in contrib/postgres_fdw contrib/pg_prewarm contrib/dblink src/test/isolation; do
			make -C "$d" -j"$jobs" install
		done
	) >"$work/build.log" 2>&1 || {
		tail -n 30 "$work/build.log" >&2
		rm -rf "$prefix"
		return 1
	}
	echo $(($(date +%s) - start)) >"$prefix/.build-seconds"
	chmod -R a+rX "$prefix"
	rm -rf "$work"
}

# a contrib module the suites need, built with PGXS into a cached build
# made before they needed it
ensure_contrib() {
	local major=$1 version=$2 module=$3 prefix=$cache/$1/$2 work
	[ -f "$("$prefix/bin/pg_config" --sharedir)/extension/$module.control" ] && return 0
	work=$(mktemp -d "$cache/$major/contrib.XXXXXX")
	say "$major: building contrib/$module into the cached build"
	tar -xf "$cache/$major"/postgresql-"$major"_"$version".orig.tar.* -C "$work" --strip-components=1
	(
		unset MAKELEVEL MAKEFLAGS MFLAGS
		make -C "$work/contrib/$module" USE_PGXS=1 PG_CONFIG="$prefix/bin/pg_config" install
	) >"$work.log" 2>&1 || {
		tail -n 30 "$work.log" >&2
		rm -rf "$work" "$work.log"
		return 1
	}
	chmod -R a+rX "$prefix"
	rm -rf "$work" "$work.log"
}

# Majors that Debian serves as binary packages for sid (in experimental)
# where no archive serves their source: Debian sid roots made by
# debootstrap in the cache hold them, and chash builds and its suites run
# there under chroot.  19's release candidate needs sid's glibc.  apt in
# that root ignores Valid-Until (experimental's Release files have expired)
# and names each package of experimental (-t experimental would take perl
# from there too).
declare -A sid_binaries=([19]=experimental)
# (redis-server, redis-tools and haproxy: the suites export_redis,
# rebalance_redis and export_haproxy, which failed there without them)
sid_tools=(make gcc libxxhash-dev zlib1g-dev nettle-dev python3 python3-cassandra
	openjdk-17-jdk-headless liblucene8-java libxml2-utils librsvg2-bin git
	ca-certificates redis-server redis-tools haproxy)

# make or reuse MAJOR's sid root in the cache; prints "root version"
sid_root() {
	local major=$1 suite=${sid_binaries[$1]} root=$cache/$1/sid-root mirror pkgs version
	mirror=$(base_url debian) || return 1
	local apt=(chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q
		-o Acquire::Check-Valid-Until=false)
	if [ ! -x "$root/usr/bin/apt-get" ]; then
		say "$major: no source served; making a Debian sid root in $root for $suite's binary packages"
		rm -rf "$root"
		mkdir -p "$cache/$major"
		debootstrap --variant=minbase sid "$root" "$mirror" >"$cache/$major/debootstrap.log" 2>&1 || {
			tail -n 20 "$cache/$major/debootstrap.log" >&2
			rm -rf "$root"
			return 1
		}
	fi
	echo "deb $mirror sid main" >"$root/etc/apt/sources.list"
	echo "deb $mirror $suite main" >"$root/etc/apt/sources.list.d/$suite.list"
	# what is missing only: a root made before is reused as it is
	pkgs=()
	for p in "postgresql-$major" "postgresql-client-$major" "postgresql-server-dev-$major" libpq5 libpq-dev; do
		chroot "$root" dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
			pkgs+=("$p/$suite")
	done
	for p in "${sid_tools[@]}"; do
		chroot "$root" dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
			pkgs+=("$p")
	done
	if [ ${#pkgs[@]} -gt 0 ]; then
		say "$major: installing in the sid root: ${pkgs[*]}"
		# (Java's set-up needs /proc; a set-up cut short is finished first)
		sid_mounted=$root
		sid_mount "$root"
		{ chroot "$root" dpkg --configure -a && "${apt[@]}" update &&
			"${apt[@]}" install -y --no-install-recommends "${pkgs[@]}"; } \
			>"$cache/$major/sid-apt.log" 2>&1 || {
			tail -n 20 "$cache/$major/sid-apt.log" >&2
			sid_umount "$root"
			sid_mounted=
			return 1
		}
		sid_umount "$root"
		sid_mounted=
	fi
	version=$(chroot "$root" dpkg-query -W -f='${Version}' "postgresql-$major")
	echo "$root $version"
}

# the mounts a server and its suites need in a root, until they end
sid_mount() {
	mount --bind /proc "$1/proc"
	mount --bind /dev "$1/dev"
	mount --bind /dev/pts "$1/dev/pts"
	mount --bind /dev/shm "$1/dev/shm"
}
sid_umount() {
	local m
	for m in dev/shm dev/pts dev proc; do
		mountpoint -q "$1/$m" && umount "$1/$m"
	done
	return 0
}

# build chash and run the suites in MAJOR's sid root: one result row
run_in_sid_root() {
	local major=$1 root version tree log suites warnings took passed failed start
	read -r root version <<<"$(sid_root "$major")" || true
	if [ -z "${root:-}" ]; then
		results+=("$major|not available (no source, no sid root)|-|-|-")
		overall=1
		return
	fi
	tree=$root/build/chash
	rm -rf "$tree"
	mkdir -p "$tree"
	git ls-files -co --exclude-standard -z | grep -zv '^test/compat/node_modules/' |
		xargs -0 tar -cf - | tar -xf - -C "$tree"
	chmod -R a+rX "$root/build"
	log=$cache/$major/chash-build.log
	local pg_config=/usr/lib/postgresql/$major/bin/pg_config
	if ! chroot "$root" sh -c "cd /build/chash && make PG_CONFIG=$pg_config all" >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		results+=("$major|$version (Debian ${sid_binaries[$major]}, sid root)|failed|-|-")
		overall=1
		return
	fi
	warnings=$(grep -c 'warning:' "$log" || true)
	if [ "$warnings" -gt 0 ]; then
		grep 'warning:' "$log" >&2
		overall=1
	fi
	suites=$root/build/suites.txt
	: >"$suites"
	start=$(date +%s)
	sid_mounted=$root
	sid_mount "$root"
	chroot "$root" env PG_CONFIG="$pg_config" PG_MAJOR="$major" \
		CHASH_SKIP_SCRIPTS="$per_major_skip" CHASH_RELEASE_NO_DIST=1 \
		CHASH_SUITE_RESULTS=/build/suites.txt \
		sh -c 'cd /build/chash && test/bin/install.sh && test/bin/run-suites.sh' 2>&1 |
		sed "s/^/[$major] /" || true
	sid_umount "$root"
	sid_mounted=
	took=$(($(date +%s) - start))
	passed=$(grep -c ' passed$' "$suites" || true)
	failed=$(grep ' failed$' "$suites" | cut -d' ' -f1 | tr '\n' ' ' || true)
	failed=${failed% }
	[ -s "$suites" ] || failed="(no suite ran)"
	[ -z "$failed" ] || overall=1
	results+=("$major|$version (Debian ${sid_binaries[$major]}, sid root)|$warnings warnings|$passed in $took s|${failed:-none}")
}

sid_mounted=
trap '[ -z "$sid_mounted" ] || sid_umount "$sid_mounted"' EXIT

results=()
overall=0
for major in "${majors[@]}"; do
	if [ -z "${candidates[$major]:-}" ]; then
		say "no source package is known for PostgreSQL $major"
		exit 2
	fi
	got=$(fetch_source "$major") || got=
	if [ -z "$got" ] && [ -n "${sid_binaries[$major]:-}" ]; then
		run_in_sid_root "$major"
		continue
	fi
	if [ -z "$got" ]; then
		# offline, or the archive moved on and serves nothing: use the
		# newest build in the cache
		cached=$(ls -d "$cache/$major"/*/bin/pg_config 2>/dev/null | sort -V | tail -n 1 || true)
		if [ -z "$cached" ]; then
			results+=("$major|not available|-|-|-")
			overall=1
			continue
		fi
		version=$(basename "$(dirname "$(dirname "$cached")")")
		from="cache"
	else
		read -r version from <<<"$got"
	fi
	if ! build_postgres "$major" "$version" || ! ensure_contrib "$major" "$version" dblink; then
		results+=("$major|$version ($from): PostgreSQL build failed|-|-|-")
		overall=1
		continue
	fi
	prefix=$cache/$major/$version
	built="built in $(cat "$prefix/.build-seconds" 2>/dev/null || echo '?') s"

	# chash from a copy of the working tree, so that each major builds in a
	# tree of its own and the checkout's own build stays as it is
	tree=$cache/$major/chash
	rm -rf "$tree"
	mkdir -p "$tree"
	git ls-files -co --exclude-standard -z | grep -zv '^test/compat/node_modules/' |
		xargs -0 tar -cf - | tar -xf - -C "$tree"
	chmod -R a+rX "$tree"
	log=$cache/$major/chash-build.log
	if ! (cd "$tree" && PG_CONFIG=$prefix/bin/pg_config make all) >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		results+=("$major|$version ($from, $built)|failed|-|-")
		overall=1
		continue
	fi
	warnings=$(grep -c 'warning:' "$log" || true)
	if [ "$warnings" -gt 0 ]; then
		grep 'warning:' "$log" >&2
		overall=1
	fi
	suites=$cache/$major/suites.txt
	: >"$suites"
	suites_start=$(date +%s)
	(
		cd "$tree"
		export PG_CONFIG=$prefix/bin/pg_config
		test/bin/install.sh
		CHASH_SKIP_SCRIPTS="$per_major_skip" CHASH_RELEASE_NO_DIST=1 \
			CHASH_SUITE_RESULTS=$suites \
			test/bin/run-suites.sh
		if [ "$major" -lt 17 ]; then
			# 14 to 16 without shared_preload_libraries, where rings cannot
			# be shared (each backend builds its own, the reason counted):
			# the suites of routing and the cache again, named *_without_preload
			: >"$suites.without_preload"
			CHASH_PRELOAD=off CHASH_SUITE_RESULTS=$suites.without_preload \
				test/bin/run-suites.sh REGRESS ISOLATION churn crash standby
			sed 's/^\([^ ]*\) /\1_without_preload /' "$suites.without_preload" >>"$suites"
		fi
	) 2>&1 | sed "s/^/[$major] /" || true
	took=$(($(date +%s) - suites_start))
	passed=$(grep -c ' passed$' "$suites" || true)
	failed=$(grep ' failed$' "$suites" | cut -d' ' -f1 | tr '\n' ' ' || true)
	failed=${failed% }
	[ -s "$suites" ] || failed="(no suite ran)"
	[ -z "$failed" ] || overall=1
	results+=("$major|$version ($from, $built)|$warnings warnings|$passed in $took s|${failed:-none}")
done

echo
echo "| PostgreSQL | source and build | chash build | suites passed | suites failed |"
echo "|---|---|---|---|---|"
for r in "${results[@]}"; do
	IFS='|' read -r a b c d e <<<"$r"
	echo "| $a | $b | $c | $d | $e |"
done
exit $overall
