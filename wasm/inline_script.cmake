# inline_script.cmake: cmake -DTEMPLATE=viewer.html -DSCRIPT=viewer-single.js -DOUTPUT=out.html -P inline_script.cmake
# Writes TEMPLATE with its <script src="viewer.js"></script> replaced by
# SCRIPT's text inline (wasm embedded by -sSINGLE_FILE): one file that opens
# from disk. "</script" inside the JS is escaped so it cannot end the tag.
file(READ "${TEMPLATE}" html)
file(READ "${SCRIPT}" js)
string(REPLACE "</script" "<\\/script" js "${js}")
string(FIND "${html}" "<script src=\"viewer.js\"></script>" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${TEMPLATE} has no <script src=\"viewer.js\"></script> to replace")
endif()
string(REPLACE "<script src=\"viewer.js\"></script>" "<script>\n${js}\n</script>" html "${html}")
file(WRITE "${OUTPUT}.tmp" "${html}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
