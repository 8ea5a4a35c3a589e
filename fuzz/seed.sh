#!/usr/bin/env bash
# Writes the seed inputs of every fuzz target into <work>/<target>/ (default target/fuzz-work):
# the recorded vendor streams from tests/fixtures/vendor-streams (see its PROVENANCE.md), each
# prefixed with chunking bytes for the decoder targets, plus a few hand-written documents for
# the JSON targets. The small minimized corpus kept in the repo is fuzz/corpus/<target>/; the work
# directory is where libFuzzer writes what it finds.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-target/fuzz-work}
streams=${ROBOTA_VENDOR_STREAMS:-tests/fixtures/vendor-streams}
mkdir -p "$work"/{sse_framer,decode_anthropic,decode_openai,decode_openai_responses,decode_gemini,config_json,tool_json,permission_patterns,settings_file,hook_output,session_snapshot,ffi_strings}

seed() { # seed <target> <name> <prefix-byte-octal> <file>
  { printf "\\$3"; cat "$4"; } > "$work/$1/$2"
}
if [ -d "$streams" ]; then
  for vendor in anthropic openai openai-responses gemini; do
    for f in "$streams/$vendor"/*.txt; do
      [ -e "$f" ] || continue
      n=$(basename "$f" .txt)
      for b in 001 007 100; do
        seed "decode_${vendor//-/_}" "$n-$b" "$b" "$f"
        seed sse_framer "$vendor-$n-$b" "$b" "$f"
      done
    done
  done
else
  echo "fuzz seeds: no vendor streams at $streams (seeding from fuzz/corpus only)"
fi

w() { printf '%s' "$3" > "$work/$1/$2"; }
# config_json: the first byte picks the parser (0 runtime, 1 session, 2 turn input, 3 scripted, 4 provider/tools).
w config_json runtime $'\x00{"v":1,"providers":{"a":{"kind":"anthropic","api_key":"$ENV:K","timeout_ms":1000,"max_retries":2}},"worker_threads":2,"session_dir":"/tmp/x"}'
w config_json session $'\x01{"v":1,"provider":"a","model":"m","system_prompt":"s","tools":["Read","Bash"],"permission_mode":"plan","delivery":"pull","max_turns":3,"allow":["Bash(ls *)"],"deny":["Write"]}'
w config_json contained $'\x01{"v":1,"provider":"a","model":"m","tool_env":{"inherit":"core","exclude":["AWS_*"],"include_only":["*"],"set":{"A":"1"}},"sandbox":{"mode":"read-only","writable":["out","~/cache"],"deny_read":["~/.ssh"],"network":true,"fallback":"refuse","limits":{"cpu_seconds":5,"address_space_mb":0,"file_size_mb":1,"processes":8}}}'
w config_json env_policy $'\x04{"inherit":"none","exclude":["*A*B*C*"],"set":{"K":"v"}}'
w config_json input $'\x02{"text":"hi","display_input":"d","tool_choice":{"type":"tool","name":"Read"}}'
w config_json scripted $'\x03{"kind":"scripted","turns":[{"deltas":["a","b"],"usage":{"input_tokens":1}},{"tool_calls":[{"name":"Read","arguments":"{"}]},{"error":{"kind":"provider","message":"x"}}],"fallback":"echo"}'
w config_json tools $'\x04{"kind":"openai","base_url":"http://127.0.0.1:1/v1","headers":{"x":"y"},"web_search":true}'
w tool_json weather $'{"name":"get_weather","description":"w","input_schema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1},"unit":{"enum":["c","f"]}},"required":["city"],"additionalProperties":false},"read_only":true,"timeout_ms":500}\x00{"city":"Paris","days":"2","unit":"k"}'
w permission_patterns bash $'Bash(git *)\x00Bash\x00git status'
w permission_patterns read $'Read(/etc/**)\x00Read\x00/etc/passwd'
w settings_file full '{"currentProvider":"p","providers":{"p":{"model":"m","apiKey":"$ENV:FUZZ_KEY"}},"permissions":{"allow":["Bash(ls)"],"deny":["Write"]},"defaultTrustLevel":"safe","env":{"A":"b"},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]},"language":"en"}'
w hook_output pre $'\x00{"continue":true,"decision":"block","reason":"no","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r","updatedInput":{"a":1},"additionalContext":"c"}}'
w hook_output cfg $'\x01{"PostToolUse":[{"matcher":"Edit|Write","hooks":[{"type":"http","url":"http://127.0.0.1:1","headers":{"A":"$ENV:X"},"timeout":3}]}]}'
w session_snapshot resume $'\x00{"v":1,"snapshot":{"v":1,"kind":"robota.session","session_id":"abc","config":{"provider":"s","model":"m"},"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"Read","arguments":"{}"}]},{"role":"tool","tool_call_id":"c1","content":"x"}],"session_allowed_tools":["Read"]},"delivery":"pull"}'
w session_snapshot transcript $'\x02{"event":"turn_start","turn_id":1,"ts":"2026-01-01T00:00:00Z"}\n{"event":"text","turn_id":1,"text":"hi"}\n{"event":"turn_end","turn_id":1}'
# ffi_strings: the first byte picks the entry point (see fuzz_targets/ffi_strings.rs).
w ffi_strings runtime $'\x00{"providers":{"s":{"kind":"scripted"}},"worker_threads":1}'
w ffi_strings session $'\x01{"provider":"s","delivery":"pull","tools":["Read"]}'
w ffi_strings contained $'\x01{"provider":"s","delivery":"pull","tools":["Bash"],"tool_env":{"inherit":"core"},"sandbox":{"mode":"workspace-write","deny_read":["/etc/shadow"],"limits":{"processes":16}}}'
w ffi_strings submit $'\x04{"text":"hello","tool_choice":"none"}'
w ffi_strings command $'\x05{"name":"mode","args":"plan"}'
w ffi_strings messages $'\x06{"view":"history"}'
w ffi_strings list $'\x07{"cwd":"/tmp","limit":3}'
w ffi_strings tool $'\x09{"name":"t","description":"d","input_schema":{"type":"object"}}'
echo "fuzz seeds written to $work"
