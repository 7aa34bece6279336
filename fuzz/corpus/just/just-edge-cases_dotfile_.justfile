# A hidden justfile name, which just also finds.
hello:
  echo hello from .justfile
