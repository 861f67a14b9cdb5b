# fish completion for swift-keychain's `security`: verbs, then each verb's options, read from the tool's own help
# (`security help`, `security help VERB`), so they are always the ones the installed tool accepts; files otherwise.
# Installed by `make install` into share/fish/vendor_completions.d/security.fish.

function __security_verb
    # The verb: the first word after `security` that is not a global option.
    for word in (commandline -opc)[2..-1]
        if not string match -q -- '-*' $word
            echo $word
            return 0
        end
    end
    return 1
end

function __security_verbs
    command security help 2>/dev/null | awk '{ print $1 }'
end

function __security_options
    set -l verb (__security_verb)
    command security help $verb 2>/dev/null | string match -r '^\s+-{1,2}[A-Za-z][A-Za-z-]*' | string trim | sort -u
end

complete -c security -f -n 'not __security_verb' -a '(__security_verbs)'
complete -c security -F -n '__security_verb; and not string match -q -- "-*" (commandline -ct)'
complete -c security -f -n '__security_verb; and string match -q -- "-*" (commandline -ct)' -a '(__security_options)'
