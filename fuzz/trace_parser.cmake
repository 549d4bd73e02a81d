# The trace parser's libFuzzer target (clang only): configure with -DVLAG_FUZZ=ON
# -DCMAKE_CXX_COMPILER=clang++ and run build/fuzz_trace_parser fuzz/corpus/trace_parser.
add_executable(fuzz_trace_parser ${PROJECT_SOURCE_DIR}/fuzz/trace_parser_fuzz.cpp)
target_link_options(fuzz_trace_parser PRIVATE -fsanitize=fuzzer)
target_link_libraries(fuzz_trace_parser PRIVATE vlag_checker)
