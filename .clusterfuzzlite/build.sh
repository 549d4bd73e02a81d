#!/bin/bash -eu
# ClusterFuzzLite's build step: fuzz/build.sh takes $CXX, $CXXFLAGS, $LIB_FUZZING_ENGINE and $OUT
# from the engine and writes the targets, their seed corpora and the libraries they need.
bash "$SRC/vlag/fuzz/build.sh"
