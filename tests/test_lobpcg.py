"""ember.lobpcg against torch.lobpcg and torch.linalg.eigh: eigenvalues, eigenvector subspaces,
generalised problems, batches, preconditioning, gradient of the eigenvalues, errors."""
import numpy as np
import pytest
import torch

import ember


def _spd(rng, m, shift=0.0):
    M = rng.standard_normal((m, m))
    return M @ M.T + shift * np.eye(m)


@pytest.mark.parametrize("largest", [True, False])
def test_eigenpairs_match_torch(largest):
    rng = np.random.default_rng(0)
    A = _spd(rng, 24)
    for k, n in ((1, None), (3, None), (2, 5)):
        E, X = ember.lobpcg(ember.tensor(A), k=k, n=n, largest=largest)
        Et, Xt = torch.lobpcg(torch.tensor(A), k=k, n=n, largest=largest)
        torch.testing.assert_close(torch.from_numpy(E.numpy()), Et, rtol=1e-6, atol=1e-6)
        assert tuple(X.shape) == tuple(Xt.shape)
        # same eigenvectors up to sign
        np.testing.assert_allclose(np.abs(np.sum(X.numpy() * Xt.numpy(), 0)), 1.0, atol=1e-5)


def test_generalised_initial_guess_preconditioner_and_float32():
    rng = np.random.default_rng(1)
    A, B = _spd(rng, 18), _spd(rng, 18, shift=18.0)
    X0 = rng.standard_normal((18, 2))
    E, _ = ember.lobpcg(ember.tensor(A), B=ember.tensor(B), X=ember.tensor(X0))
    Et, _ = torch.lobpcg(torch.tensor(A), B=torch.tensor(B), X=torch.tensor(X0))
    torch.testing.assert_close(torch.from_numpy(E.numpy()), Et, rtol=1e-6, atol=1e-6)
    iK = np.diag(1.0 / np.diag(A))
    E, _ = ember.lobpcg(ember.tensor(A), k=2, iK=ember.tensor(iK))
    ref = np.linalg.eigvalsh(A)[::-1][:2]
    np.testing.assert_allclose(E.numpy(), ref, rtol=1e-6)
    E32, _ = ember.lobpcg(ember.tensor(A, dtype=ember.float32), k=2)
    Et32, _ = torch.lobpcg(torch.tensor(A, dtype=torch.float32), k=2)
    assert E32.dtype == ember.float32
    torch.testing.assert_close(torch.from_numpy(E32.numpy()), Et32, rtol=1e-4, atol=1e-4)


def test_batched_and_gradient():
    rng = np.random.default_rng(2)
    A = np.stack([_spd(rng, 12), _spd(rng, 12)])
    E, X = ember.lobpcg(ember.tensor(A), k=1)
    Et, Xt = torch.lobpcg(torch.tensor(A), k=1)
    assert tuple(E.shape) == tuple(Et.shape) and tuple(X.shape) == tuple(Xt.shape)
    torch.testing.assert_close(torch.from_numpy(E.numpy()), Et, rtol=1e-6, atol=1e-6)
    ae = ember.tensor(A[0], requires_grad=True)
    at = torch.tensor(A[0], requires_grad=True)
    ember.lobpcg(ae, k=1)[0].sum().backward()
    torch.lobpcg(at, k=1)[0].sum().backward()
    torch.testing.assert_close(torch.from_numpy(ae.grad.numpy()), at.grad, rtol=1e-5, atol=1e-6)


def test_too_small_matrix_error_matches_torch():
    with pytest.raises(ValueError) as te:
        torch.lobpcg(torch.eye(5), k=2)
    with pytest.raises(ValueError) as ee:
        ember.lobpcg(ember.eye(5), k=2)
    assert str(ee.value) == str(te.value)
