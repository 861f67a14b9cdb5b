# bash completion for swift-keychain's `security`: verbs, then each verb's options, read from the tool's own help
# (`security help`, `security help VERB`), so they are always the ones the installed tool accepts; files otherwise.
# Installed by `make install` into share/bash-completion/completions/security.

_security() {
    local current=${COMP_WORDS[COMP_CWORD]}
    local verb_index=1
    # Global options (-i, -q, -v …) come before the verb.
    while [ "$verb_index" -lt "$COMP_CWORD" ] && [[ ${COMP_WORDS[verb_index]} == -* ]]; do
        verb_index=$((verb_index + 1))
    done
    if [ "$COMP_CWORD" -eq "$verb_index" ]; then
        local verbs
        verbs=$(command security help 2>/dev/null | awk '{ print $1 }')
        mapfile -t COMPREPLY < <(compgen -W "$verbs" -- "$current")
        return
    fi
    if [[ $current == -* ]]; then
        local options
        options=$(command security help "${COMP_WORDS[verb_index]}" 2>/dev/null \
            | grep -oE '^[[:space:]]+-{1,2}[A-Za-z][A-Za-z-]*' | sed 's/^[[:space:]]*//' | sort -u)
        mapfile -t COMPREPLY < <(compgen -W "$options" -- "$current")
        return
    fi
    mapfile -t COMPREPLY < <(compgen -f -- "$current")
}
complete -F _security security
