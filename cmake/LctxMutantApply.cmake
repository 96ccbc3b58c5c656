# Script mode (cmake -P) of conformance/mutants/CMakeLists.txt: applies one
# mutant file to the example C plugin and writes the mutated source.
#   MUTANT  the NAME.mutant file        SOURCE  the plugin's C source
#   OUT     the mutated C file to write
# A mutant file (format: conformance/mutants/README.md) is comment lines
# (`#`) and blank lines, then
#   @@ find
#   <the exact text to find: one or more lines>
#   @@ replace
#   <the text that takes its place: zero or more lines>
#   @@ end
# The find text must occur exactly once in SOURCE; anything else stops the
# build with a message that names the mutant file.
cmake_minimum_required(VERSION 3.25)

foreach(var MUTANT SOURCE OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "LctxMutantApply.cmake: -D${var}=... is required")
  endif()
endforeach()

# Stops with a message naming the mutant file; the arguments are joined.
function(mutant_error)
  list(JOIN ARGV "" why)
  message(FATAL_ERROR "mutant ${MUTANT}: ${why}")
endfunction()

if(NOT EXISTS "${MUTANT}")
  mutant_error("no such file")
endif()
file(READ "${MUTANT}" content)
if("${content}" MATCHES "\r")
  mutant_error("holds a carriage return: write it with LF line ends")
endif()
# One leading and one trailing newline, so that every marker line is
# "\n@@ ...\n".
set(text "\n${content}")
if(NOT text MATCHES "\n$")
  string(APPEND text "\n")
endif()

# Finds the marker line MARKER exactly once; sets OUT_VAR to its offset.
function(find_marker marker out_var)
  string(FIND "${text}" "\n@@ ${marker}\n" first)
  string(FIND "${text}" "\n@@ ${marker}\n" last REVERSE)
  if(first EQUAL -1)
    mutant_error("no line '@@ ${marker}' (a mutant is: comment lines, "
                 "'@@ find', the exact text, '@@ replace', its replacement, "
                 "'@@ end')")
  endif()
  if(NOT first EQUAL last)
    mutant_error("the line '@@ ${marker}' occurs more than once")
  endif()
  set(${out_var} ${first} PARENT_SCOPE)
endfunction()

find_marker(find at_find)
find_marker(replace at_replace)
find_marker(end at_end)
if(NOT at_find LESS at_replace OR NOT at_replace LESS at_end)
  mutant_error("the markers must come in the order '@@ find', '@@ replace', "
               "'@@ end'")
endif()

# The text between two marker lines, without the newline that ends it.
function(between from_offset from_length to_offset out_var)
  math(EXPR start "${from_offset} + ${from_length}")
  math(EXPR length "${to_offset} - ${start}")
  if(length LESS 0)
    set(length 0)
  endif()
  string(SUBSTRING "${text}" ${start} ${length} piece)
  set(${out_var} "${piece}" PARENT_SCOPE)
endfunction()

string(LENGTH "\n@@ find\n" find_marker_length)
string(LENGTH "\n@@ replace\n" replace_marker_length)
string(LENGTH "\n@@ end\n" end_marker_length)
between(${at_find} ${find_marker_length} ${at_replace} find)
between(${at_replace} ${replace_marker_length} ${at_end} replace)

# Before '@@ find': comments and blank lines only; after '@@ end': blank.
string(SUBSTRING "${text}" 0 ${at_find} header)
string(REGEX MATCH "\n[ \t]*[^#\n \t][^\n]*" stray "${header}")
if(NOT "${stray}" STREQUAL "")
  string(STRIP "${stray}" stray)
  mutant_error("before '@@ find' only comment lines (#) and blank lines are "
               "allowed, not '${stray}'")
endif()
math(EXPR tail_start "${at_end} + ${end_marker_length}")
string(SUBSTRING "${text}" ${tail_start} -1 tail)
if(NOT "${tail}" MATCHES "^[ \t\n]*$")
  mutant_error("nothing but blank lines may follow '@@ end'")
endif()

if("${find}" STREQUAL "")
  mutant_error("the text after '@@ find' is empty")
endif()
if("${find}" STREQUAL "${replace}")
  mutant_error("the replacement equals the text it replaces: no defect")
endif()

file(READ "${SOURCE}" source)
string(FIND "${source}" "${find}" first)
string(FIND "${source}" "${find}" last REVERSE)
get_filename_component(source_name "${SOURCE}" NAME)
if(first EQUAL -1)
  mutant_error("the text after '@@ find' does not occur in ${source_name} "
               "(it must match exactly once, whitespace included): the "
               "plugin changed, or the snippet has a typo")
endif()
if(NOT first EQUAL last)
  mutant_error("the text after '@@ find' occurs more than once in "
               "${source_name} (at offsets ${first} and ${last}): make it "
               "longer so that it matches exactly once")
endif()

string(LENGTH "${find}" find_length)
math(EXPR after "${first} + ${find_length}")
string(SUBSTRING "${source}" 0 ${first} before_text)
string(SUBSTRING "${source}" ${after} -1 after_text)
get_filename_component(mutant_name "${MUTANT}" NAME_WE)
file(WRITE "${OUT}.tmp"
     "/* Mutant ${mutant_name}: ${source_name} with "
     "conformance/mutants/${mutant_name}.mutant applied. Generated; do not "
     "edit. */\n${before_text}${replace}${after_text}")
# Replaced only when the content changes, so no needless recompiles.
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
