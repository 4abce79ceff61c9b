"""The 100-hand test (``/practice/test/``): test number N's hands set one
after another with no hints, scored by the exact analysis on a worker, and a
result that can be shared (``selectors``, ``views``, ``urls``). Its writes are
``games.services.practice_test``."""
