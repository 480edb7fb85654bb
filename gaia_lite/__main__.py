from gaia_lite.cli.app import main

if __name__ == "__main__":
    main()
