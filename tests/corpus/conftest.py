"""The corpora's generators are build scripts, not tests: importing one runs it (and two
of them share module names such as ``sources``), so pytest does not collect them."""

collect_ignore_glob = ["*/generator/*"]
