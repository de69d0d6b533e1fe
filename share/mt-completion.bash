# bash completion for mt's programs: mt-record, mt-decode, mt-symbolize,
# mt-lifetime, mt-window, mt-group, mt-pooldiff, mt-report and mt-plot.  Installed
# under each program's name in bash-completion's completions directory;
# or source it.  The options come from each program's --help, so they
# cannot drift from it; their values from the lists below.

_mt_options()
{
	"$1" --help 2>/dev/null | grep -oE -- '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,' | sort -u
}

# The last part of a comma-separated list, completed from $2.
_mt_list()
{
	local cur=$1 words=$2 head=
	case $cur in
	*,*) head=${cur%,*}, cur=${cur##*,} ;;
	esac
	COMPREPLY=($(compgen -P "$head" -W "$words" -- "$cur"))
	compopt -o nospace 2>/dev/null
}

_mt_complete()
{
	local prog=$1 cur prev i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# mt-record: after -- (or the first word that is not an option), the
	# command and its arguments.
	if [ "$prog" = mt-record ]; then
		for ((i = 1; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			--) break ;;
			-o|-D|-s|-m|-e|-O|-d|-a|--output|--depth|--max-size|--events|--min-order|--duration|--alloc-fn)
				((i++)) ;;
			-*) ;;
			*) break ;;
			esac
		done
		if ((i < COMP_CWORD)); then
			[ "${COMP_WORDS[i]}" = -- ] && ((i++))
			if ((i == COMP_CWORD)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return
		fi
	fi

	case $prog:$prev in
	*:-o|*:--output|mt-pooldiff:-P|mt-pooldiff:--proc)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	mt-group:--diff|mt-report:--html|mt-report:--json|mt-report:--suppress|mt-group:--suppress)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	mt-symbolize:-y|mt-symbolize:-s|mt-symbolize:--symbols|mt-report:-y|mt-report:--symbols)
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	mt-record:-e|mt-record:--events)
		_mt_list "$cur" "kmalloc cache page"; return ;;
	mt-record:-D|mt-record:-s|mt-record:--depth|mt-record:-m|mt-record:--max-size|\
	mt-record:-O|mt-record:--min-order|mt-record:-d|mt-record:--duration|\
	mt-record:-a|mt-record:--alloc-fn|\
	mt-window:-f|mt-window:--from|mt-window:-t|mt-window:--to|mt-window:-l|\
	mt-window:--last|mt-window:-i|mt-window:--series|mt-window:-p|mt-window:--pid|\
	mt-window:-m|mt-window:--match|mt-window:-x|mt-window:--exclude|mt-window:-N|mt-window:--process|\
	mt-group:-n|mt-group:--top|mt-group:-A|mt-group:--skip|mt-group:-D|mt-group:--depth|\
	mt-pooldiff:-i|mt-pooldiff:--interval|mt-pooldiff:--time|mt-pooldiff:-m|\
	mt-pooldiff:--include|mt-pooldiff:-x|mt-pooldiff:--exclude|mt-pooldiff:-A|\
	mt-pooldiff:--skip|mt-plot:-t|mt-plot:--title|mt-plot:-n|mt-plot:--top|\
	mt-report:-n|mt-report:--top|mt-report:-A|mt-report:--skip)
		return ;;	# a value of the user's own
	mt-window:-H|mt-window:--heap)
		COMPREPLY=($(compgen -W "malloc mmap reserve kmalloc page" -- "$cur")); return ;;
	mt-group:-k|mt-group:--by)
		_mt_list "$cur" "process pid heap type class function stack module file line free-function free-stack task temporary size-class order commit-time decommit-time"; return ;;
	mt-group:-s|mt-group:--sort)
		COMPREPLY=($(compgen -W "impact size count" -- "$cur")); return ;;
	mt-group:-F|mt-group:--format)
		COMPREPLY=($(compgen -W "table tsv json folded pprof" -- "$cur")); return ;;
	mt-group:-w|mt-group:--weight)
		COMPREPLY=($(compgen -W "size impact" -- "$cur")); return ;;
	mt-pooldiff:-s|mt-pooldiff:--sort)
		COMPREPLY=($(compgen -W "bytes allocs frees diff per-alloc tag" -- "$cur")); return ;;
	mt-pooldiff:-F|mt-pooldiff:--format)
		COMPREPLY=($(compgen -W "table tsv" -- "$cur")); return ;;
	mt-pooldiff:--suppress)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	mt-pooldiff:-k|mt-pooldiff:--tag)
		COMPREPLY=($(compgen -W "function heap module stack" -- "$cur")); return ;;
	esac
	case $prog:$cur in
	mt-group:--tree=*)
		COMPREPLY=($(compgen -W "--tree=top-down --tree=bottom-up" -- "$cur")); return ;;
	*:-*)
		COMPREPLY=($(compgen -W "$(_mt_options "$prog")" -- "$cur")); return ;;
	esac
	if [ "$prog" = mt-pooldiff ] && [[ " ${COMP_WORDS[*]} " == *" -S "* ||
	    " ${COMP_WORDS[*]} " == *" --snapshot "* ]]; then
		_mt_list "$cur" "slab vmalloc allocinfo pid:"
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}

_mt()
{
	_mt_complete "${1##*/}"
}

complete -F _mt mt-record mt-decode mt-symbolize mt-lifetime mt-window mt-group mt-pooldiff mt-report \
	mt-plot
