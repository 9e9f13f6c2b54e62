"""soma's readers in Python: a store's runs, forwards, curves, fleet and trials.

    import soma
    store = soma.open("runs.soma")          # or soma.open("soma://host:7000")
    store.runs(sort="loss")                 # the rows `soma runs --json` lists
    c = store.curve("tuesday")              # NumPy arrays: forward, value, when_us
    soma.frame(store.runs())                # a pandas DataFrame, when pandas is installed

Every reader is soma's C++ reader, and answers in the shapes the `soma`
command's --json documents (docs/python.md). Errors are soma.StoreError,
whose .kind says which kind of trouble it was.
"""

from ._soma import Store, StoreError

# soma.open is not in __all__: `from soma import *` leaves the built-in open alone.
__all__ = ["frame", "runs_frame", "Store", "StoreError"]


def open(where):  # noqa: A001 (soma.open, as the issue and the docs name it)
    """Opens the store `where` read-only: a directory, or soma://HOST:PORT (a
    served store; TLS through $SOMA_TLS_CERT, $SOMA_TLS_KEY and $SOMA_TLS_CA,
    as the soma command). Raises StoreError saying why it cannot."""
    return Store(where)


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("soma.frame needs pandas, which soma itself does not: "
                          "apt install python3-pandas (or pip install pandas)") from e
    return pandas


def frame(rows):
    """`rows` (a reader's list of dicts, or a curve's arrays) as a pandas DataFrame."""
    return _pandas().DataFrame(rows)


def _runs_columns(row):
    flat = {k: v for k, v in row.items() if k not in ("params", "values", "began", "trial")}
    for name, value in row["params"].items():
        flat["params." + name] = value
    for name, value in row["values"].items():
        flat["values." + name] = value["last"]
        flat["values.min:" + name] = value["min"]
        flat["values.max:" + name] = value["max"]
    trial = row.get("trial")
    flat["trial.study"] = trial["study"] if trial else None
    flat["trial.number"] = trial["trial"] if trial else None
    return flat


def runs_frame(store, *args, **query):
    """store.runs(...) as a DataFrame, a row per run: its columns, then a
    column per parameter (params.NAME) and per summarised value (values.NAME,
    its last; values.min:NAME and values.max:NAME), as mlflow.search_runs()
    gives them."""
    return frame([_runs_columns(r) for r in store.runs(*args, **query)])


Store.runs_frame = runs_frame
Store.__enter__ = lambda self: self
Store.__exit__ = lambda self, *exc: self.close()
