#!/usr/bin/env bash
# curl against a running `loci serve` (LOCI_URL, LOCI_TOKEN).
set -euo pipefail
: "${LOCI_URL:=http://127.0.0.1:7411}"
auth=(-H "authorization: Bearer ${LOCI_TOKEN:-}" -H 'content-type: application/json')
curl -sf "$LOCI_URL/v1/search" "${auth[@]}" -d '{"query":"refund the charge","topK":5}'
curl -sf "$LOCI_URL/v1/context" "${auth[@]}" -d '{"question":"how are refunds charged","maxTokens":2000}'
curl -sf "$LOCI_URL/v1/memory/records" "${auth[@]}" -d '{"namespace":"agents/boss/knowledge","text":"The boss is weak to ice"}'
curl -sf "$LOCI_URL/v1/memory/recall" "${auth[@]}" -d '{"query":"what is the boss weak to","namespaces":["agents/boss/knowledge"],"topK":2}'
