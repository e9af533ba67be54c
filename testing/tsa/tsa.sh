#!/usr/bin/env bash
# A throwaway RFC 3161 time-stamping authority made of `openssl` alone, for tests.
#
#   tsa.sh init DIR             root CA, intermediate CA, TSA certificates (RSA-2048, ECDSA
#                               P-256, P-384) and an `openssl ts` configuration, in DIR
#   tsa.sh leaf DIR NAME KEY EXT START END
#                               one more certificate signed by the intermediate (KEY: rsa,
#                               p256, p384; EXT: a section of DIR/ca.cnf; START/END:
#                               YYYYMMDDHHMMSSZ), e.g. a TSA certificate valid only in the past
#   tsa.sh reply DIR SECTION <QUERY >REPLY
#                               answers a DER TimeStampReq with a DER TimeStampResp (SECTION:
#                               tsa_rsa, tsa_p256, tsa_p384 or a section added to DIR/ts.cnf)
#
# RFC 3161 §2.3: the TSA certificate carries extendedKeyUsage id-kp-timeStamping, critical,
# and nothing else (`openssl ts -reply` refuses a signer certificate without it).
set -euo pipefail

die() { echo "tsa.sh: $*" >&2; exit 2; }

newkey() { # KEY FILE
    case "$1" in
        rsa) openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$2" ;;
        p256) openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$2" ;;
        p384) openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out "$2" ;;
        *) die "unknown key type $1" ;;
    esac
}

# Signs DIR/NAME.csr with the CA in DIR/CA.pem + DIR/CA.key (or self-signs when CA is "self").
sign() { # DIR NAME CA EXT START END
    local dir=$1 name=$2 ca=$3 ext=$4 start=$5 end=$6
    if [ "$ca" = self ]; then
        set -- -selfsign -keyfile "$dir/$name.key"
    else
        set -- -cert "$dir/$ca.pem" -keyfile "$dir/$ca.key"
    fi
    openssl ca -batch -notext -config "$dir/ca.cnf" "$@" -extensions "$ext" \
        -startdate "$start" -enddate "$end" -in "$dir/$name.csr" -out "$dir/$name.pem" 2>/dev/null
    openssl x509 -in "$dir/$name.pem" -outform DER -out "$dir/$name.der"
}

cert() { # DIR NAME KEY CA EXT START END
    local dir=$1 name=$2
    newkey "$3" "$dir/$name.key"
    openssl req -new -key "$dir/$name.key" -subj "/O=actionseal test/CN=$name" -out "$dir/$name.csr"
    sign "$dir" "$name" "$4" "$5" "$6" "$7"
}

ca_cnf() { # DIR
    cat <<CNF
[ca]
default_ca = ca_default
[ca_default]
dir = $1
database = \$dir/index.txt
new_certs_dir = \$dir/newcerts
serial = \$dir/serial
default_md = sha256
policy = policy_any
unique_subject = no
copy_extensions = none
email_in_dn = no
[policy_any]
organizationName = optional
commonName = supplied
[v3_root]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[v3_intermediate]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
CNF
    tsa_extensions v3_tsa "critical, "
    # For negative fixtures only: `openssl ts -reply` refuses to sign with the first; no
    # verifier knows what the second's critical extension (a private OID) asks of it.
    tsa_extensions v3_tsa_noncritical ""
    tsa_extensions v3_tsa_unknown_critical "critical, " "1.2.3.4.5.6 = critical, ASN1:NULL"
}

tsa_extensions() { # SECTION EKU_PREFIX [EXTRA_LINE]
    printf '[%s]\nbasicConstraints = critical, CA:false\n' "$1"
    printf 'keyUsage = critical, digitalSignature, nonRepudiation\n'
    printf 'extendedKeyUsage = %stimeStamping\n' "$2"
    printf 'subjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid\n'
    if [ -n "${3:-}" ]; then printf '%s\n' "$3"; fi
}

ts_section() { # DIR SECTION LEAF DIGEST ESS_ALG
    cat <<CNF
[$2]
dir = $1
serial = \$dir/tsaserial
crypto_device = builtin
signer_cert = \$dir/$3.pem
signer_key = \$dir/$3.key
certs = \$dir/intermediate.pem
signer_digest = $4
default_policy = 1.2.3.4.1
other_policies = 1.2.3.4.2
digests = sha256, sha384, sha512
accuracy = secs:1, millisecs:500, microsecs:100
clock_precision_digits = 3
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = $5
CNF
}

# Far enough apart that any token made today falls inside.
START=20250101000000Z
END=20991231235959Z

case "${1:-}" in
    init)
        [ $# -eq 2 ] || die "usage: tsa.sh init DIR"
        dir=$(mkdir -p "$2" && cd "$2" && pwd)
        mkdir -p "$dir/newcerts"
        : >"$dir/index.txt"
        echo 1000 >"$dir/serial"
        echo 01 >"$dir/tsaserial"
        ca_cnf "$dir" >"$dir/ca.cnf"
        cert "$dir" root rsa self v3_root "$START" "$END"
        cert "$dir" intermediate p256 root v3_intermediate "$START" "$END"
        cert "$dir" tsa-rsa rsa intermediate v3_tsa "$START" "$END"
        cert "$dir" tsa-p256 p256 intermediate v3_tsa "$START" "$END"
        cert "$dir" tsa-p384 p384 intermediate v3_tsa "$START" "$END"
        {
            printf '[tsa]\ndefault_tsa = tsa_rsa\n'
            # ESS signingCertificateV2 (RFC 5816) for RSA and P-384, v1 (SHA-1) for P-256.
            ts_section "$dir" tsa_rsa tsa-rsa sha256 sha256
            ts_section "$dir" tsa_p256 tsa-p256 sha256 sha1
            ts_section "$dir" tsa_p384 tsa-p384 sha384 sha384
        } >"$dir/ts.cnf"
        ;;
    leaf)
        [ $# -eq 7 ] || die "usage: tsa.sh leaf DIR NAME KEY EXT START END"
        cert "$2" "$3" "$4" intermediate "$5" "$6" "$7"
        ;;
    section)
        # tsa.sh section DIR SECTION LEAF DIGEST ESS_ALG: one more `openssl ts` section.
        [ $# -eq 6 ] || die "usage: tsa.sh section DIR SECTION LEAF DIGEST ESS_ALG"
        dir=$(cd "$2" && pwd)
        ts_section "$dir" "$3" "$4" "$5" "$6" >>"$dir/ts.cnf"
        ;;
    reply)
        [ $# -eq 3 ] || die "usage: tsa.sh reply DIR SECTION <QUERY >REPLY"
        tmp=$(mktemp -d)
        trap 'rm -rf "$tmp"' EXIT
        cat >"$tmp/query"
        openssl ts -reply -config "$2/ts.cnf" -section "$3" -queryfile "$tmp/query" \
            -out "$tmp/reply" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
        cat "$tmp/reply"
        ;;
    *)
        die "usage: tsa.sh init DIR | leaf DIR NAME KEY EXT START END | section DIR SECTION LEAF DIGEST ESS_ALG | reply DIR SECTION"
        ;;
esac
