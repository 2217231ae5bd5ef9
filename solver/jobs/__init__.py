"""Layer-parallel table builds (issue 28): a plan of chunks, tasks that build one chunk each, and executors
that run them (threads in this process, or Dask distributed on one or many machines), with a resumable
job folder. The normal `kniffel solve` does not use them; its results are the same bit for bit."""
