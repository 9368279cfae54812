#!/bin/sh
# A script with no engine command at all must fail, not pass for want of anything to check.
# expect: script: no engine command found
cat > extra_llm_api_options.yaml <<'EOT'
enable_attention_dp: true
EOT
