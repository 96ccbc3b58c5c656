# Script mode (cmake -P) of conformance/mutants/CMakeLists.txt: applies one
# mutant file to the example C plugin and writes the mutated copy of it.
#   MUTANT      the NAME.mutant file
#   SOURCE_DIR  the plugin's folder: its sources are its *.c and *.h
#   OUT         the folder to write: a copy of every source, one of them
#               mutated (files whose content is unchanged are not touched)
# A mutant file (format: conformance/mutants/README.md) is comment lines
# (`#`) and blank lines, then
#   @@ find
#   <the exact text to find: one or more lines>
#   @@ replace
#   <the text that takes its place: zero or more lines>
#   @@ end
# The find text must occur exactly once in all the sources together (so in
# exactly one of them); anything else stops the build with a message that
# names the mutant file.
cmake_minimum_required(VERSION 3.25)

foreach(var MUTANT SOURCE_DIR OUT)
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

file(GLOB sources LIST_DIRECTORIES false "${SOURCE_DIR}/*.c"
     "${SOURCE_DIR}/*.h")
list(SORT sources)
if(NOT sources)
  mutant_error("no *.c or *.h in ${SOURCE_DIR}")
endif()
# Where the find text occurs: the files (their names) and the offsets.
set(matches)
set(offsets)
foreach(path IN LISTS sources)
  file(READ "${path}" source)
  string(FIND "${source}" "${find}" first)
  if(first EQUAL -1)
    continue()
  endif()
  string(FIND "${source}" "${find}" last REVERSE)
  get_filename_component(name "${path}" NAME)
  list(APPEND matches "${name}")
  if(first EQUAL last)
    list(APPEND offsets "${name} at offset ${first}")
  else()
    list(APPEND offsets "${name} at offsets ${first} and ${last}")
    list(APPEND matches "${name}")
  endif()
  set(target "${path}")
  set(target_source "${source}")
  set(target_first ${first})
endforeach()
list(LENGTH matches match_count)
get_filename_component(source_dir_name "${SOURCE_DIR}" NAME)
if(match_count EQUAL 0)
  mutant_error("the text after '@@ find' does not occur in any source of "
               "${source_dir_name} (*.c, *.h; it must match exactly once, "
               "whitespace included): the plugin changed, or the snippet has "
               "a typo")
endif()
if(match_count GREATER 1)
  list(JOIN offsets ", " where)
  mutant_error("the text after '@@ find' occurs more than once in the "
               "sources of ${source_dir_name} (${where}): make it longer so "
               "that it matches exactly once")
endif()

string(LENGTH "${find}" find_length)
math(EXPR after "${target_first} + ${find_length}")
string(SUBSTRING "${target_source}" 0 ${target_first} before_text)
string(SUBSTRING "${target_source}" ${after} -1 after_text)
get_filename_component(target_name "${target}" NAME)
get_filename_component(mutant_name "${MUTANT}" NAME_WE)
file(MAKE_DIRECTORY "${OUT}")
foreach(path IN LISTS sources)
  get_filename_component(name "${path}" NAME)
  if(path STREQUAL target)
    file(WRITE "${OUT}/${name}.tmp"
         "/* Mutant ${mutant_name}: ${name} with "
         "conformance/mutants/${mutant_name}.mutant applied. Generated; do "
         "not edit. */\n${before_text}${replace}${after_text}")
    # Replaced only when the content changes, so no needless recompiles.
    file(COPY_FILE "${OUT}/${name}.tmp" "${OUT}/${name}" ONLY_IF_DIFFERENT)
    file(REMOVE "${OUT}/${name}.tmp")
  else()
    file(COPY_FILE "${path}" "${OUT}/${name}" ONLY_IF_DIFFERENT)
  endif()
endforeach()
