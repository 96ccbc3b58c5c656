/*
 * tests/op_table/op_dummy.h - an operation added through the table of
 * operations (harness/core/case/case_ops.h), for test_op_table only: its
 * line of the operation list. The build of that test defines
 * LCTX_OPS_EXTRA_HEADER as this header, so that case.h's LCTX_OP_LIST holds
 * `dummy` after the built-in operations.
 */
#ifndef LCTX_TESTS_OP_DUMMY_H
#define LCTX_TESTS_OP_DUMMY_H

#define LCTX_OPS_EXTRA(X) X(DUMMY, dummy)

#endif /* LCTX_TESTS_OP_DUMMY_H */
