"""The one place where the JVM's exceptions become Python ones (DESIGN §6 exit codes)."""

# The Java classes of the documented failures: exit 2 (bad usage or input) and exit 3
# (resources refused: memory, GPU).
INVALID_INPUT = "org.nlspark.core.InvalidInputException"
RESOURCE_REFUSED = "org.nlspark.core.ResourceRefusedException"


class ResourceError(MemoryError):
    """nlspark refused a run for lack of resources (the command line's exit 3)."""


def call(what, fn, *args):
    """Calls fn(*args) (a py4j call); the JVM's failure raised as ValueError (exit 2),
    ResourceError (exit 3) with the JVM's one-sentence message, else RuntimeError (exit 1)."""
    try:
        return fn(*args)
    except Exception as e:
        java = _java_exception(e)
        if java is None:
            raise
        kind = java.getClass().getName()
        message = java.getMessage()
        if kind == INVALID_INPUT:
            raise ValueError(message) from None
        if kind == RESOURCE_REFUSED:
            raise ResourceError(message) from None
        raise RuntimeError("nlspark %s failed with an internal error: %s" % (what, java.toString())) from e


def _java_exception(e):
    """The Java exception behind a py4j failure, else None (a Spark Connect client has no py4j)."""
    try:
        from py4j.protocol import Py4JJavaError
        from pyspark.errors.exceptions.captured import CapturedException
    except ImportError:
        return None
    if isinstance(e, Py4JJavaError):
        return e.java_exception
    if isinstance(e, CapturedException):
        # pyspark turns some Java exceptions (IllegalArgumentException and its subclasses,
        # InvalidInputException among them) into its own, keeping the Java one as _origin.
        return e._origin
    return None


# The status of a Spark Connect answer (org.nlspark.connect.CallPlugin) -> the exception raised.
ANSWER_ERRORS = {"invalid-input": ValueError, "resource-refused": ResourceError}
