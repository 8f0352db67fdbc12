# bash completion for btfc(1)                               -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-only

_btfc()
{
    local cur prev words cword
    _init_completion || return

    local cmds="encode relocate dwarf dump list verify convert layout dedup diff pahole help"
    if ((cword == 1)); then
        COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
        return
    fi

    local cmd=${words[1]} opts=""
    case $cmd in
    encode)
        opts="-o --output --base --compat --global-var --attributes --no-floats
              --no-enum64 --no-vars --lang-exclude --force --kfunc-tags --no-dedup
              -j --jobs --list --distilled-base --stats --memory-budget -v --verbose
              --help"
        case $prev in
        --compat) COMPREPLY=($(compgen -W "1.24 1.30 1.31" -- "$cur")); return ;;
        -j | --jobs | --lang-exclude | --memory-budget) return ;;
        esac ;;
    relocate) opts="--base -o --output --format --help" ;;
    dwarf) opts="--cu --offset --stats --skip-only -j --jobs --help"
        case $prev in --cu | --offset | -j | --jobs) return ;; esac ;;
    dump)
        opts="--base --format --help id"
        ;;
    list) opts="--format --help" ;;
    verify) opts="--base --strict --format --help" ;;
    convert) opts="-o --base --endian --help"
        [[ $prev == --endian ]] && { COMPREPLY=($(compgen -W "little big native" -- "$cur")); return; } ;;
    layout)
        opts="-C --class_name --base --btf_base -E --expand_types --hex -r --rel_offset
              -c --cacheline_size -q --quiet -s --sizes -n --nr_members -N --class_name_len
              -t --separator -H --holes -B --bit_holes -z --hole_size_ge -i --contains
              -f --find_pointers_to -y --prefix_filter -x --exclude --structs --unions
              --packed --with_flexible_array --with_embedded_flexible_array --compat
              -R --reorganize -S --show_reorg_steps -P --packable --compile --skip_missing
              --suppress_aligned_attribute --suppress_packed --format --cacheline-map
              --diff -F --format_path -V --verbose --help"
        case $prev in
        --compat) COMPREPLY=($(compgen -W "1.24 1.30 1.31" -- "$cur")); return ;;
        -F | --format_path) COMPREPLY=($(compgen -W "btf dwarf" -- "$cur")); return ;;
        -C | --class_name | -i | --contains | -f | --find_pointers_to | -c | -t | -H | -B | -z | -y | -x)
            return ;;
        esac ;;
    dedup)
        opts="-o --base -j --jobs --keep-strings --compat --no-dedup --flatten --stats
              --batch --no-prepared-base --relayout-strings --serial-refs --exact
              --group-types --help" ;;
    diff) opts="--base-a --base-b --base --show --ignore-kinds -q --quiet --format --help" ;;
    pahole)
        opts="-J --btf_encode --btf_encode_detached= --btf_base -j --jobs --btf_features=
              --btf_features_strict= --supported_btf_features --btf_gen_floats --btf_gen_all
              --lang_exclude= -V --verbose --version --numeric_version -C --class_name
              -E --hex -F -s -R --compile --help" ;;
    help)
        ((cword == 2)) && COMPREPLY=($(compgen -W "${cmds% help}" -- "$cur"))
        return ;;
    esac
    case $prev in
    --format)
        case $cmd in
        dump) COMPREPLY=($(compgen -W "raw json c" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
        esac
        return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi
    _filedir
} &&
    complete -F _btfc btfc

# ex: filetype=sh
