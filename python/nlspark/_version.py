"""The package's version, and the Maven version of the jar it was built with (same release)."""

__version__ = "0.1.0.dev0"
# The root pom's <version>; a jar of another version is refused (nlspark._session).
MAVEN_VERSION = "0.1.0-SNAPSHOT"
