"""Bundle declarations (data). Read with gaia_lite.loader.bundles.load_bundles()."""
