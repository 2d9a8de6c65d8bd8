# Writes the man page of the topkfs command from its own help, so that the
# page never disagrees with the program: the top-level --help, then the
# --help of every subcommand that it lists.
#   cmake -DTOPKFS=<path to topkfs> -DVERSION=<x.y.z> -DOUTPUT=<topkfs.1> -P TopkfsManPage.cmake

function(topkfs_help out)
  execute_process(COMMAND ${TOPKFS} ${ARGN} --help
                  OUTPUT_VARIABLE text RESULT_VARIABLE status ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "topkfs ${ARGN} --help failed (${status}): ${error}")
  endif()
  # roff: a backslash is written \e, and a line that starts with . or ' would
  # be read as a request, so it is protected with the zero-width \&.
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

topkfs_help(main)
# The subcommands are the first words of the lines under "Subcommands:".
string(REGEX MATCH "Subcommands:\n(.*)" listing "${main}")
string(REGEX MATCHALL "\n  [a-z][a-z-]*" names "\n${CMAKE_MATCH_1}")

string(TIMESTAMP today "%Y-%m-%d" UTC)
set(page ".TH TOPKFS 1 \"${today}\" \"topkfs ${VERSION}\" \"User Commands\"
.SH NAME
topkfs \\- supervised feature selection with top-k regularization
.SH SYNOPSIS
.B topkfs
.I SUBCOMMAND
[\\fIOPTIONS\\fR]
.SH DESCRIPTION
.nf
${main}
.fi
.SH SUBCOMMANDS
")
foreach(name IN LISTS names)
  string(STRIP "${name}" name)
  topkfs_help(text ${name})
  string(APPEND page ".SS ${name}\n.nf\n${text}\n.fi\n")
endforeach()
string(APPEND page ".SH EXIT STATUS
0 on success, 2 for a usage error (a bad option or value), 1 for a data or
runtime error.
.SH SEE ALSO
The documentation in the docs/ folder of the topkfs sources.
")
file(WRITE ${OUTPUT} "${page}")
