# pi-shake aliases and functions for bash and zsh.
#
#   source /path/to/pi-shake/examples/aliases.sh     # in ~/.bashrc or ~/.zshrc
#
# Every one of them works on the current directory's newest session (pi's `--continue` rule)
# unless given other session arguments. Run them while pi is NOT running on that session: pi
# keeps its leaf in memory and never re-reads the file, so anything appended meanwhile ends up on
# a dead branch. pi-shake refuses (exit 4) when the file changed in the last few seconds.

# Fold old tool output and big blocks of this directory's newest session.
alias pishake='pi-shake shake -c'
# Say what each scope would fold, and the one-time cache cost; writes nothing.
alias pidry='pi-shake dry-run -c'
# This directory's sessions, newest first: size, projected tokens, folded tokens.
alias pils='pi-shake status'
# Bring back everything pi-shake folded.
alias piundo='pi-shake undo -c'

# The pre-compaction routine: compact first, shake second.
#   1. undo    - the summary must see the real content, not placeholders
#   2. compact - a pi compaction entry (the offline scorer unless told otherwise)
#   3. shake   - fold what is left after the kept range
# Arguments replace `-c`, e.g. `piprecompact --session 01a2` or `piprecompact s.jsonl`.
piprecompact() {
    if [ "$#" -eq 0 ]; then
        set -- -c
    fi
    pi-shake undo "$@" &&
        pi-shake compact "$@" &&
        pi-shake shake "$@"
}

# A CI gate over saved sessions: exit 6 when pi would reject or misread one, writing would be
# refused, or its projected context exceeds the budget (PI_SHAKE_BUDGET, default 150,000).
#   picheck sessions/*.jsonl
picheck() {
    pi-shake status --check --max-tokens "${PI_SHAKE_BUDGET:-150000}" "$@"
}
