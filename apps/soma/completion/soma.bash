# bash completion for soma (installed as share/bash-completion/completions/soma).
# Completes subcommands, their options, directories after --store, files
# after -o and --rules, and a run's name where RUN goes (read from the
# store with `soma runs --json`: the store named on the line, else
# $SOMA_STORE, else ./soma-store).

_soma_runs() {
  local store=$1
  soma ${store:+--store "$store"} --json runs 2>/dev/null \
    | sed -n 's/^ *"run": "\(.*\)",\{0,1\}$/\1/p'
}

_soma() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local commands="runs forwards curve facts nodes compare cache standing fleet trials reclaim health plot live check copy serve trace help"
  case $prev in
    --store) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    -o|--output|--rules|--tls-cert|--tls-key) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --listen) COMPREPLY=($(compgen -W "127.0.0.1:8080 127.0.0.1:0" -- "$cur")); return ;;
  esac
  # The subcommand (and plot's or cache's own), the store, and how many
  # words that are no option came after the subcommand.
  local i word sub="" sub2="" store="" plain=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    case $word in
      --store) store=${COMP_WORDS[i+1]}; ((i++)); continue ;;
      --*|-o) continue ;;
    esac
    if [[ -z $sub ]]; then
      sub=$word
    elif [[ ( $sub == plot || $sub == cache ) && -z $sub2 ]]; then
      sub2=$word
    elif [[ ${COMP_WORDS[i-1]} != -* ]]; then
      ((plain++))
    fi
  done
  local common="--store --json --help"
  case $sub in
    "") COMPREPLY=($(compgen -W "$commands --store --json --help --version" -- "$cur")); return ;;
    plot)
      if [[ -z $sub2 ]]; then
        COMPREPLY=($(compgen -W "progress spent machines study graph" -- "$cur")); return
      fi ;;
    cache)
      if [[ -z $sub2 ]]; then COMPREPLY=($(compgen -W "ls clear" -- "$cur")); return; fi ;;
    help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then
    local opts=$common
    case $sub$sub2 in
      nodes) opts+=" --last" ;;
      curve|compare) opts+=" --csv" ;;
      cachels|cacheclear) opts+=" --node" ;;
      reclaim) opts+=" --quiet-over" ;;
      health) opts+=" --rules --at --fail-on --list" ;;
      plotprogress) opts+=" -o --fact --window --log-y --x --size --title" ;;
      plotspent) opts+=" -o --last --size --title" ;;
      plotmachines) opts+=" -o --size --title" ;;
      plotgraph) opts+=" -o" ;;
      plotstudy) opts+=" -o --fact --result --size --title" ;;
      live) opts+=" --run --fact --interval --once --quiet-after" ;;
      serve) opts+=" --listen --tls-cert --tls-key --live-cap" ;;
      trace) opts+=" -o --forward --last --max-bytes" ;;
    esac
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  # RUN: the first word after the subcommand for those that take one.
  case $sub$sub2 in
    forwards|curve|facts|nodes|fleet|health|live|trace|plotprogress|plotspent|plotmachines)
      if ((plain == 0)) || [[ $prev == --run ]]; then
        COMPREPLY=($(compgen -W "$(_soma_runs "$store")" -- "$cur"))
      fi ;;
    compare) # RUN_A RUN_B
      if ((plain <= 1)); then COMPREPLY=($(compgen -W "$(_soma_runs "$store")" -- "$cur")); fi ;;
  esac
}

complete -F _soma soma
