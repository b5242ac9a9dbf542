# The `key=value` arguments of a scenario script, read into its `opt` array:
# sourced by chain.tcl, manet.tcl and wired.tcl after they set their
# defaults. A key the script has no default for is refused (exit 2), so a
# misspelt setting never runs silently with the default.
proc read_args {script argv} {
    upvar opt opt
    foreach arg $argv {
        set kv [split $arg =]
        if {[llength $kv] != 2 || ![info exists opt([lindex $kv 0])]} {
            puts stderr "$script: bad argument '$arg' (known: [lsort [array names opt]])"
            exit 2
        }
        set opt([lindex $kv 0]) [lindex $kv 1]
    }
}
