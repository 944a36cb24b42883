# cmake -DINPUT=<file> -DOUTPUT=<file.h> -DNAME=<symbol> -P EmbedText.cmake
# Writes the text of INPUT as `inline const char NAME[] = R"...";`.
file(READ ${INPUT} TEXT)
file(WRITE ${OUTPUT} "// Generated from ${INPUT}; do not edit.\n#pragma once\ninline const char ${NAME}[] = R\"QDTEXT(${TEXT})QDTEXT\";\n")
