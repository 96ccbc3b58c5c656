/*
 * empty_initialize.c - the LLVMFuzzerInitialize of the empty target when it
 * is linked with fuzzers/replay_main.c as bench_empty_replay (libFuzzer
 * needs none; the replay driver calls one). Does nothing, so the replayed
 * empty target costs only the driver: the baseline of the instruction
 * counts in bench/instructions.py.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}
