"""nlspark from Python: the commands as functions over py4j (nlspark.one_sample, nlspark.glm,
...), nlspark.session / nlspark.configure, and nlspark.nilearn, a drop-in for nilearn's
non_parametric_inference and permuted_ols."""

from ._errors import ResourceError
from ._session import configure, jar_path, session
from ._version import __version__
from .commands import (bootstrap, correlation, defaults, glm, isc, one_sample,
                       ridge_bootstrap, timeseries_correlation, two_sample)
from .result import Result

__all__ = ["ResourceError", "Result", "bootstrap", "configure", "correlation", "defaults", "glm",
           "isc", "jar_path", "one_sample", "ridge_bootstrap", "session", "timeseries_correlation",
           "two_sample", "__version__"]
