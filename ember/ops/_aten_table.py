"""The aten table: torch's ``aten`` overloads ember provides, one line each (data, read by ``_aten.py``).

A line is ``<schema as torch prints it>  <target> [options]``. Targets:
  ``=prim``        dispatch ember primitive ``prim``: Tensor (and Tensor-list) arguments in schema order
                   become its positional inputs (then Scalars, while the kernel wants more inputs); the
                   other arguments become its params by name;
  ``path``         call ember's public function ``ember.<path>`` with the schema's arguments (positional
                   ones by position, keyword-only ones by name);
  ``:helper``      call ``_aten_adapters.<helper>`` (argument forms no generic rule covers).
Options: ``prim=a,b`` the primitives a public-function entry stands for (for the reverse lookup),
``rn=p:a`` primitive param ``p`` is schema argument ``a``, ``drop=x,y`` arguments ember ignores (layouts, pinning, sparse gradients), ``fixed=x:v`` an argument
ember supports only at value ``v``.
"""

TABLE = """
# unary pointwise primitives
abs(Tensor self) -> Tensor  =abs
acos(Tensor self) -> Tensor  =acos
acosh(Tensor self) -> Tensor  =acosh
asin(Tensor self) -> Tensor  =asin
asinh(Tensor self) -> Tensor  =asinh
atan(Tensor self) -> Tensor  =atan
atanh(Tensor self) -> Tensor  =atanh
ceil(Tensor self) -> Tensor  =ceil
cos(Tensor self) -> Tensor  =cos
cosh(Tensor self) -> Tensor  =cosh
deg2rad(Tensor self) -> Tensor  =deg2rad
digamma(Tensor self) -> Tensor  =digamma
erf(Tensor self) -> Tensor  =erf
erfc(Tensor self) -> Tensor  =erfc
erfinv(Tensor self) -> Tensor  =erfinv
exp(Tensor self) -> Tensor  =exp
exp2(Tensor self) -> Tensor  =exp2
expm1(Tensor self) -> Tensor  =expm1
floor(Tensor self) -> Tensor  =floor
frac(Tensor self) -> Tensor  =frac
i0(Tensor self) -> Tensor  =i0
isfinite(Tensor self) -> Tensor  =isfinite
isinf(Tensor self) -> Tensor  =isinf
isnan(Tensor self) -> Tensor  =isnan
isneginf(Tensor self) -> Tensor  =isneginf
isposinf(Tensor self) -> Tensor  =isposinf
lgamma(Tensor self) -> Tensor  =lgamma
log(Tensor self) -> Tensor  =log
log10(Tensor self) -> Tensor  =log10
log1p(Tensor self) -> Tensor  =log1p
log2(Tensor self) -> Tensor  =log2
logical_not(Tensor self) -> Tensor  =logical_not
bitwise_not(Tensor self) -> Tensor  =bitwise_not
neg(Tensor self) -> Tensor  =neg
rad2deg(Tensor self) -> Tensor  =rad2deg
reciprocal(Tensor self) -> Tensor  =reciprocal
relu(Tensor self) -> Tensor  =relu
rsqrt(Tensor self) -> Tensor  =rsqrt
sgn(Tensor self) -> Tensor  =sgn
sigmoid(Tensor self) -> Tensor  =sigmoid
sign(Tensor self) -> Tensor  =sign
signbit(Tensor self) -> Tensor  =signbit
sin(Tensor self) -> Tensor  =sin
sinc(Tensor self) -> Tensor  =sinc
sinh(Tensor self) -> Tensor  =sinh
sqrt(Tensor self) -> Tensor  =sqrt
tan(Tensor self) -> Tensor  =tan
tanh(Tensor self) -> Tensor  =tanh
trunc(Tensor self) -> Tensor  =trunc
conj_physical(Tensor self) -> Tensor  =conj_physical
angle(Tensor self) -> Tensor  angle prim=angle,angle_complex
real(Tensor(a) self) -> Tensor(a)  real
imag(Tensor(a) self) -> Tensor(a)  imag
special_airy_ai(Tensor x) -> Tensor  =special_airy_ai
special_bessel_j0(Tensor self) -> Tensor  =special_bessel_j0
special_bessel_j1(Tensor self) -> Tensor  =special_bessel_j1
special_bessel_y0(Tensor self) -> Tensor  =special_bessel_y0
special_bessel_y1(Tensor self) -> Tensor  =special_bessel_y1
special_entr(Tensor self) -> Tensor  =special_entr
special_erfcx(Tensor self) -> Tensor  =special_erfcx
special_i0e(Tensor self) -> Tensor  =special_i0e
special_i1(Tensor self) -> Tensor  =special_i1
special_i1e(Tensor self) -> Tensor  =special_i1e
special_log_ndtr(Tensor self) -> Tensor  =special_log_ndtr
special_modified_bessel_i0(Tensor self) -> Tensor  =special_modified_bessel_i0
special_modified_bessel_i1(Tensor self) -> Tensor  =special_modified_bessel_i1
special_modified_bessel_k0(Tensor self) -> Tensor  =special_modified_bessel_k0
special_modified_bessel_k1(Tensor self) -> Tensor  =special_modified_bessel_k1
special_ndtr(Tensor self) -> Tensor  =special_ndtr
special_ndtri(Tensor self) -> Tensor  =special_ndtri
special_scaled_modified_bessel_k0(Tensor x) -> Tensor  =special_scaled_modified_bessel_k0
special_scaled_modified_bessel_k1(Tensor x) -> Tensor  =special_scaled_modified_bessel_k1
special_spherical_bessel_j0(Tensor x) -> Tensor  =special_spherical_bessel_j0
# pointwise with params
logit(Tensor self, float? eps=None) -> Tensor  =logit
nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor  =nan_to_num
round(Tensor self) -> Tensor  =round
round.decimals(Tensor self, *, int decimals) -> Tensor  =round
mvlgamma(Tensor self, int p) -> Tensor  =mvlgamma
polygamma(int n, Tensor self) -> Tensor  =polygamma
clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor  =clamp
clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor  clamp
addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor  =addcmul
addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor  =addcdiv
lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor  =lerp
lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor  =lerp
where.self(Tensor condition, Tensor self, Tensor other) -> Tensor  =where
where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor  =where
where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor  =where
where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor  =where
sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor  =sigmoid_backward
tanh_backward(Tensor grad_output, Tensor output) -> Tensor  =tanh_backward
threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor  =threshold_backward fixed=threshold:0
# binary pointwise
add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  =add
add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor  =add
sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  =sub
sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor  =sub
mul.Tensor(Tensor self, Tensor other) -> Tensor  =mul
mul.Scalar(Tensor self, Scalar other) -> Tensor  =mul
div.Tensor(Tensor self, Tensor other) -> Tensor  =div
div.Scalar(Tensor self, Scalar other) -> Tensor  =div
div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor  div prim=div,div_floor,div_trunc
div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor  div prim=div_floor,div_trunc
pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor  =pow
pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor  =pow_tensor_scalar
pow.Scalar(Scalar self, Tensor exponent) -> Tensor  =pow
atan2(Tensor self, Tensor other) -> Tensor  =atan2
bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor  =bitwise_and
bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor  =bitwise_and
bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor  =bitwise_or
bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor  =bitwise_or
bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor  =bitwise_xor
bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor  =bitwise_xor
bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor  =bitwise_left_shift
bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor  =bitwise_right_shift
copysign.Tensor(Tensor self, Tensor other) -> Tensor  =copysign
copysign.Scalar(Tensor self, Scalar other) -> Tensor  =copysign
eq.Tensor(Tensor self, Tensor other) -> Tensor  =eq
eq.Scalar(Tensor self, Scalar other) -> Tensor  =eq
ne.Tensor(Tensor self, Tensor other) -> Tensor  =ne
ne.Scalar(Tensor self, Scalar other) -> Tensor  =ne
ge.Tensor(Tensor self, Tensor other) -> Tensor  =ge
ge.Scalar(Tensor self, Scalar other) -> Tensor  =ge
gt.Tensor(Tensor self, Tensor other) -> Tensor  =gt
gt.Scalar(Tensor self, Scalar other) -> Tensor  =gt
le.Tensor(Tensor self, Tensor other) -> Tensor  =le
le.Scalar(Tensor self, Scalar other) -> Tensor  =le
lt.Tensor(Tensor self, Tensor other) -> Tensor  =lt
lt.Scalar(Tensor self, Scalar other) -> Tensor  =lt
fmax(Tensor self, Tensor other) -> Tensor  =fmax
fmin(Tensor self, Tensor other) -> Tensor  =fmin
fmod.Tensor(Tensor self, Tensor other) -> Tensor  =fmod
fmod.Scalar(Tensor self, Scalar other) -> Tensor  =fmod
gcd(Tensor self, Tensor other) -> Tensor  =gcd
lcm(Tensor self, Tensor other) -> Tensor  =lcm
heaviside(Tensor self, Tensor values) -> Tensor  =heaviside
hypot(Tensor self, Tensor other) -> Tensor  =hypot
igamma(Tensor self, Tensor other) -> Tensor  =igamma
igammac(Tensor self, Tensor other) -> Tensor  =igammac
logaddexp(Tensor self, Tensor other) -> Tensor  =logaddexp
logaddexp2(Tensor self, Tensor other) -> Tensor  =logaddexp2
logical_and(Tensor self, Tensor other) -> Tensor  =logical_and
logical_or(Tensor self, Tensor other) -> Tensor  =logical_or
logical_xor(Tensor self, Tensor other) -> Tensor  =logical_xor
maximum(Tensor self, Tensor other) -> Tensor  =maximum
minimum(Tensor self, Tensor other) -> Tensor  =minimum
nextafter(Tensor self, Tensor other) -> Tensor  =nextafter
remainder.Tensor(Tensor self, Tensor other) -> Tensor  =remainder
remainder.Scalar(Tensor self, Scalar other) -> Tensor  =remainder
xlogy.Tensor(Tensor self, Tensor other) -> Tensor  =xlogy
special_xlog1py(Tensor self, Tensor other) -> Tensor  =xlog1py
special_zeta(Tensor self, Tensor other) -> Tensor  =special_zeta
special_chebyshev_polynomial_t(Tensor x, Tensor n) -> Tensor  =special_chebyshev_polynomial_t
special_chebyshev_polynomial_u(Tensor x, Tensor n) -> Tensor  =special_chebyshev_polynomial_u
special_chebyshev_polynomial_v(Tensor x, Tensor n) -> Tensor  =special_chebyshev_polynomial_v
special_chebyshev_polynomial_w(Tensor x, Tensor n) -> Tensor  =special_chebyshev_polynomial_w
special_shifted_chebyshev_polynomial_t(Tensor x, Tensor n) -> Tensor  =special_shifted_chebyshev_polynomial_t
special_shifted_chebyshev_polynomial_u(Tensor x, Tensor n) -> Tensor  =special_shifted_chebyshev_polynomial_u
special_shifted_chebyshev_polynomial_v(Tensor x, Tensor n) -> Tensor  =special_shifted_chebyshev_polynomial_v
special_shifted_chebyshev_polynomial_w(Tensor x, Tensor n) -> Tensor  =special_shifted_chebyshev_polynomial_w
special_hermite_polynomial_h(Tensor x, Tensor n) -> Tensor  =special_hermite_polynomial_h
special_hermite_polynomial_he(Tensor x, Tensor n) -> Tensor  =special_hermite_polynomial_he
special_laguerre_polynomial_l(Tensor x, Tensor n) -> Tensor  =special_laguerre_polynomial_l
special_legendre_polynomial_p(Tensor x, Tensor n) -> Tensor  =special_legendre_polynomial_p
# reductions
sum(Tensor self, *, ScalarType? dtype=None) -> Tensor  sum prim=sum
sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  sum prim=sum
mean(Tensor self, *, ScalarType? dtype=None) -> Tensor  mean prim=mean
mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  mean prim=mean
prod(Tensor self, *, ScalarType? dtype=None) -> Tensor  prod prim=prod
prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  prod prim=prod
amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor  amax prim=amax
amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor  amin prim=amin
hash_tensor(Tensor self, int[1] dim=[], *, bool keepdim=False, int mode=0) -> Tensor  hash_tensor prim=hash_tensor
any(Tensor self) -> Tensor  any prim=any
any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor  any prim=any
any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor  any prim=any
all(Tensor self) -> Tensor  all prim=all
all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor  all prim=all
all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor  all prim=all
argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor  argmax prim=argmax
argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor  argmin prim=argmin
max(Tensor self) -> Tensor  max prim=max_all
max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)  max prim=max_dim
min(Tensor self) -> Tensor  min prim=min_all
min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)  min prim=min_dim
median(Tensor self) -> Tensor  median prim=median_all
median.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)  median prim=median_dim
nanmedian(Tensor self) -> Tensor  nanmedian prim=nanmedian_all
nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)  nanmedian prim=nanmedian_dim
var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor  var prim=var
std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor  std prim=std
logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor  logsumexp prim=logsumexp
cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor  cumsum prim=cumsum
cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor  cumprod prim=cumprod
cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)  cummax prim=cummax
cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)  cummin prim=cummin
logcumsumexp(Tensor self, int dim) -> Tensor  logcumsumexp prim=logcumsumexp
kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)  kthvalue prim=kthvalue
mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)  mode prim=mode
linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor  linalg.vector_norm prim=linalg_vector_norm
renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor  renorm prim=renorm
# views and shape
view(Tensor(a) self, SymInt[] size) -> Tensor(a)  Tensor.view prim=view
view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)  Tensor.view prim=view_dtype
permute(Tensor(a) self, int[] dims) -> Tensor(a)  permute prim=permute
transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)  transpose prim=transpose
t(Tensor(a) self) -> Tensor(a)  t
expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)  Tensor.expand prim=expand drop=implicit
unsqueeze(Tensor(a) self, int dim) -> Tensor(a)  unsqueeze prim=unsqueeze
squeeze(Tensor(a) self) -> Tensor(a)  squeeze
squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)  squeeze
squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)  squeeze prim=squeeze rn=dims:dim
select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)  select prim=select
slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)  :slice_tensor prim=slice
diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)  diagonal prim=diagonal
as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)  as_strided prim=as_strided
as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor  =as_strided_scatter
alias(Tensor(a) self) -> Tensor(a)  =alias
view_as_real(Tensor(a) self) -> Tensor(a)  view_as_real prim=view_as_real
view_as_complex(Tensor(a) self) -> Tensor(a)  view_as_complex prim=view_as_complex
reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)  reshape
_unsafe_view(Tensor self, SymInt[] size) -> Tensor  reshape
unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]  unbind
split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]  split
split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]  split
chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]  chunk
narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)  narrow
flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)  flatten
unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)  unflatten
movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)  movedim
clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor  clone prim=clone
_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor  :to_copy prim=to_dtype
copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor  :copy prim=copy
flip(Tensor self, int[] dims) -> Tensor  flip prim=flip
roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor  roll prim=roll
cat(Tensor[] tensors, int dim=0) -> Tensor  cat prim=cat
stack(Tensor[] tensors, int dim=0) -> Tensor  stack
tril(Tensor self, SymInt diagonal=0) -> Tensor  tril prim=tril
triu(Tensor self, SymInt diagonal=0) -> Tensor  triu prim=triu
repeat(Tensor self, SymInt[] repeats) -> Tensor  Tensor.repeat
# indexing
index.Tensor(Tensor self, Tensor?[] indices) -> Tensor  :index_tensor prim=index
index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor  :index_put prim=index_put
gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor  gather prim=gather drop=sparse_grad
scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor  scatter prim=scatter
scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor  scatter
scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor  scatter_add prim=scatter_add
scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor  scatter_reduce prim=scatter_reduce_two
index_select(Tensor self, int dim, Tensor index) -> Tensor  index_select prim=index_select
index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor  index_add prim=index_add
index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor  index_copy prim=index_copy
index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor  index_fill prim=index_fill
masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor  masked_fill prim=masked_fill
masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor  masked_fill
take(Tensor self, Tensor index) -> Tensor  take prim=take
nonzero(Tensor self) -> Tensor  nonzero prim=nonzero
isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor  isin prim=isin
searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor  searchsorted prim=searchsorted
bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor  bincount prim=bincount
histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor  histc prim=histc
sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)  sort prim=sort
sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)  sort
topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)  topk prim=topk
# linear algebra
mm(Tensor self, Tensor mat2) -> Tensor  =mm
bmm(Tensor self, Tensor mat2) -> Tensor  =bmm
matmul(Tensor self, Tensor other) -> Tensor  =matmul
dot(Tensor self, Tensor tensor) -> Tensor  =dot
vdot(Tensor self, Tensor other) -> Tensor  =vdot
mv(Tensor self, Tensor vec) -> Tensor  =mv
addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor  =addmm
addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor  =addmv
addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor  =addr
baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor  =baddbmm
einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor  :einsum prim=einsum
linalg_det(Tensor A) -> Tensor  linalg.det prim=linalg_det
linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)  linalg.inv_ex prim=linalg_inv_ex
linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> (Tensor L, Tensor info)  linalg.cholesky_ex prim=linalg_cholesky_ex
cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor  =cholesky_solve
linalg_eigh(Tensor self, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)  linalg.eigh prim=linalg_eigh
linalg_qr(Tensor A, str mode="reduced") -> (Tensor Q, Tensor R)  linalg.qr prim=linalg_qr
linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)  linalg.slogdet prim=linalg_slogdet
geqrf(Tensor self) -> (Tensor a, Tensor tau)  =geqrf
linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor  linalg.solve prim=linalg_solve
linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)  linalg.svd prim=linalg_svd
linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor  linalg.svdvals prim=linalg_svdvals
linalg_matrix_exp(Tensor self) -> Tensor  linalg.matrix_exp prim=linalg_matrix_exp
# neural network
convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor  =convolution
_softmax(Tensor self, int dim, bool half_to_float) -> Tensor  =_softmax fixed=half_to_float:False
_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor  =_log_softmax fixed=half_to_float:False
_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor  =_softmax_backward_data drop=input_dtype
_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor  =_log_softmax_backward_data drop=input_dtype
native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)  =native_layer_norm
native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)  :native_layer_norm_backward
embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor  =embedding drop=sparse
embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq) -> Tensor  =embedding_dense_backward
nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor  =nll_loss
nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)  :nll_loss_forward
nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight) -> Tensor  :nll_loss_backward
im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor  =im2col
col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor  =col2im
# composites torch registers as aten ops (resolved in ember's public namespace)
softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor  softmax
log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor  log_softmax
linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor  nn.functional.linear
gelu(Tensor self, *, str approximate="none") -> Tensor  nn.functional.gelu
silu(Tensor self) -> Tensor  nn.functional.silu
hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor  nn.functional.hardtanh prim=hardtanh
leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor  nn.functional.leaky_relu
elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor  nn.functional.elu fixed=scale:1,input_scale:1
softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor  nn.functional.softplus prim=softplus
hardswish(Tensor self) -> Tensor  nn.functional.hardswish prim=hardswish
hardsigmoid(Tensor self) -> Tensor  nn.functional.hardsigmoid
mish(Tensor self) -> Tensor  nn.functional.mish
layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor  nn.functional.layer_norm drop=cudnn_enable
dropout(Tensor input, float p, bool train) -> Tensor  nn.functional.dropout
max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor  nn.functional.max_pool2d
avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor  nn.functional.avg_pool2d prim=avg_pool2d
adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor  nn.functional.adaptive_avg_pool2d
# creation
full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  full prim=full drop=layout,pin_memory
zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  zeros drop=layout,pin_memory
ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  ones drop=layout,pin_memory
arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  arange drop=layout,pin_memory
arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  arange drop=layout,pin_memory
arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  arange drop=layout,pin_memory
zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor  zeros_like drop=layout,pin_memory,memory_format
ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor  ones_like drop=layout,pin_memory,memory_format
full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor  full_like drop=layout,pin_memory,memory_format
scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  scalar_tensor drop=layout,pin_memory
# multi-tensor (_foreach_*) ops, as optimizers call them
_foreach_abs(Tensor[] self) -> Tensor[]  _foreach_abs prim=_foreach_abs
_foreach_abs_(Tensor(a!)[] self) -> ()  _foreach_abs_ prim=_foreach_abs_
_foreach_add.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]  _foreach_add prim=_foreach_add
_foreach_add.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]  _foreach_add prim=_foreach_add
_foreach_add.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]  _foreach_add prim=_foreach_add
_foreach_add.Tensor(Tensor[] self, Tensor other, *, Scalar alpha=1) -> Tensor[]  _foreach_add prim=_foreach_add
_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()  _foreach_add_ prim=_foreach_add_
_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()  _foreach_add_ prim=_foreach_add_
_foreach_add_.ScalarList(Tensor(a!)[] self, Scalar[] scalars) -> ()  _foreach_add_ prim=_foreach_add_
_foreach_add_.Tensor(Tensor(a!)[] self, Tensor other, *, Scalar alpha=1) -> ()  _foreach_add_ prim=_foreach_add_
_foreach_addcdiv.Scalar(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar value=1) -> Tensor[]  _foreach_addcdiv prim=_foreach_addcdiv
_foreach_addcdiv.ScalarList(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar[] scalars) -> Tensor[]  _foreach_addcdiv prim=_foreach_addcdiv
_foreach_addcdiv.Tensor(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Tensor scalars) -> Tensor[]  _foreach_addcdiv prim=_foreach_addcdiv
_foreach_addcdiv_.Scalar(Tensor(a!)[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar value=1) -> ()  _foreach_addcdiv_ prim=_foreach_addcdiv_
_foreach_addcdiv_.ScalarList(Tensor(a!)[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar[] scalars) -> ()  _foreach_addcdiv_ prim=_foreach_addcdiv_
_foreach_addcdiv_.Tensor(Tensor(a!)[] self, Tensor[] tensor1, Tensor[] tensor2, Tensor scalars) -> ()  _foreach_addcdiv_ prim=_foreach_addcdiv_
_foreach_addcmul.Scalar(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar value=1) -> Tensor[]  _foreach_addcmul prim=_foreach_addcmul
_foreach_addcmul.ScalarList(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar[] scalars) -> Tensor[]  _foreach_addcmul prim=_foreach_addcmul
_foreach_addcmul.Tensor(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Tensor scalars) -> Tensor[]  _foreach_addcmul prim=_foreach_addcmul
_foreach_addcmul_.Scalar(Tensor(a!)[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar value=1) -> ()  _foreach_addcmul_ prim=_foreach_addcmul_
_foreach_addcmul_.ScalarList(Tensor(a!)[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar[] scalars) -> ()  _foreach_addcmul_ prim=_foreach_addcmul_
_foreach_addcmul_.Tensor(Tensor(a!)[] self, Tensor[] tensor1, Tensor[] tensor2, Tensor scalars) -> ()  _foreach_addcmul_ prim=_foreach_addcmul_
_foreach_clamp_max.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]  _foreach_clamp_max
_foreach_clamp_max.List(Tensor[] self, Tensor[] other) -> Tensor[]  _foreach_clamp_max
_foreach_clamp_max.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]  _foreach_clamp_max
_foreach_clamp_max_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()  _foreach_clamp_max_
_foreach_clamp_max_.List(Tensor(a!)[] self, Tensor[] other) -> ()  _foreach_clamp_max_
_foreach_clamp_max_.ScalarList(Tensor(a!)[] self, Scalar[] scalars) -> ()  _foreach_clamp_max_
_foreach_clamp_min.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]  _foreach_clamp_min
_foreach_clamp_min.List(Tensor[] self, Tensor[] other) -> Tensor[]  _foreach_clamp_min
_foreach_clamp_min.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]  _foreach_clamp_min
_foreach_clamp_min_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()  _foreach_clamp_min_
_foreach_clamp_min_.List(Tensor(a!)[] self, Tensor[] other) -> ()  _foreach_clamp_min_
_foreach_clamp_min_.ScalarList(Tensor(a!)[] self, Scalar[] scalars) -> ()  _foreach_clamp_min_
_foreach_copy_(Tensor(a!)[] self, Tensor[] src, bool non_blocking=False) -> ()  _foreach_copy_ prim=_foreach_copy_
_foreach_div.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]  _foreach_div prim=_foreach_div
_foreach_div.List(Tensor[] self, Tensor[] other) -> Tensor[]  _foreach_div prim=_foreach_div
_foreach_div.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]  _foreach_div prim=_foreach_div
_foreach_div.Tensor(Tensor[] self, Tensor other) -> Tensor[]  _foreach_div prim=_foreach_div
_foreach_div_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()  _foreach_div_ prim=_foreach_div_
_foreach_div_.List(Tensor(a!)[] self, Tensor[] other) -> ()  _foreach_div_ prim=_foreach_div_
_foreach_div_.ScalarList(Tensor(a!)[] self, Scalar[] scalars) -> ()  _foreach_div_ prim=_foreach_div_
_foreach_div_.Tensor(Tensor(a!)[] self, Tensor other) -> ()  _foreach_div_ prim=_foreach_div_
_foreach_exp(Tensor[] self) -> Tensor[]  _foreach_exp prim=_foreach_exp
_foreach_exp_(Tensor(a!)[] self) -> ()  _foreach_exp_ prim=_foreach_exp_
_foreach_lerp.List(Tensor[] self, Tensor[] tensors1, Tensor[] weights) -> Tensor[]  _foreach_lerp prim=_foreach_lerp
_foreach_lerp.Scalar(Tensor[] self, Tensor[] tensors1, Scalar weight) -> Tensor[]  _foreach_lerp prim=_foreach_lerp
_foreach_lerp.ScalarList(Tensor[] self, Tensor[] tensors1, Scalar[] weight) -> Tensor[]  _foreach_lerp prim=_foreach_lerp
_foreach_lerp_.List(Tensor(a!)[] self, Tensor[] tensors1, Tensor[] weights) -> ()  _foreach_lerp_ prim=_foreach_lerp_
_foreach_lerp_.Scalar(Tensor(a!)[] self, Tensor[] tensors1, Scalar weight) -> ()  _foreach_lerp_ prim=_foreach_lerp_
_foreach_lerp_.ScalarList(Tensor(a!)[] self, Tensor[] tensors1, Scalar[] weight) -> ()  _foreach_lerp_ prim=_foreach_lerp_
_foreach_maximum.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]  _foreach_maximum prim=_foreach_maximum
_foreach_maximum.List(Tensor[] self, Tensor[] other) -> Tensor[]  _foreach_maximum prim=_foreach_maximum
_foreach_maximum.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]  _foreach_maximum prim=_foreach_maximum
_foreach_maximum_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()  _foreach_maximum_ prim=_foreach_maximum_
_foreach_maximum_.List(Tensor(a!)[] self, Tensor[] other) -> ()  _foreach_maximum_ prim=_foreach_maximum_
_foreach_maximum_.ScalarList(Tensor(a!)[] self, Scalar[] scalars) -> ()  _foreach_maximum_ prim=_foreach_maximum_
_foreach_minimum.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]  _foreach_minimum prim=_foreach_minimum
_foreach_minimum.List(Tensor[] self, Tensor[] other) -> Tensor[]  _foreach_minimum prim=_foreach_minimum
_foreach_minimum.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]  _foreach_minimum prim=_foreach_minimum
_foreach_minimum_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()  _foreach_minimum_ prim=_foreach_minimum_
_foreach_minimum_.List(Tensor(a!)[] self, Tensor[] other) -> ()  _foreach_minimum_ prim=_foreach_minimum_
_foreach_minimum_.ScalarList(Tensor(a!)[] self, Scalar[] scalars) -> ()  _foreach_minimum_ prim=_foreach_minimum_
_foreach_mul.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]  _foreach_mul prim=_foreach_mul
_foreach_mul.List(Tensor[] self, Tensor[] other) -> Tensor[]  _foreach_mul prim=_foreach_mul
_foreach_mul.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]  _foreach_mul prim=_foreach_mul
_foreach_mul.Tensor(Tensor[] self, Tensor other) -> Tensor[]  _foreach_mul prim=_foreach_mul
_foreach_mul_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()  _foreach_mul_ prim=_foreach_mul_
_foreach_mul_.List(Tensor(a!)[] self, Tensor[] other) -> ()  _foreach_mul_ prim=_foreach_mul_
_foreach_mul_.ScalarList(Tensor(a!)[] self, Scalar[] scalars) -> ()  _foreach_mul_ prim=_foreach_mul_
_foreach_mul_.Tensor(Tensor(a!)[] self, Tensor other) -> ()  _foreach_mul_ prim=_foreach_mul_
_foreach_neg(Tensor[] self) -> Tensor[]  _foreach_neg prim=_foreach_neg
_foreach_neg_(Tensor(a!)[] self) -> ()  _foreach_neg_ prim=_foreach_neg_
_foreach_norm.Scalar(Tensor[] self, Scalar ord=2, ScalarType? dtype=None) -> Tensor[]  _foreach_norm prim=_foreach_norm
_foreach_pow.List(Tensor[] self, Tensor[] exponent) -> Tensor[]  _foreach_pow prim=_foreach_pow
_foreach_pow.Scalar(Tensor[] self, Scalar exponent) -> Tensor[]  _foreach_pow prim=_foreach_pow
_foreach_pow.ScalarList(Tensor[] self, Scalar[] exponent) -> Tensor[]  _foreach_pow prim=_foreach_pow
_foreach_pow.ScalarAndTensor(Scalar self, Tensor[] exponent) -> Tensor[]  _foreach_pow prim=_foreach_pow_scalar_base rn=base:self
_foreach_pow_.List(Tensor(a!)[] self, Tensor[] exponent) -> ()  _foreach_pow_ prim=_foreach_pow_
_foreach_pow_.Scalar(Tensor(a!)[] self, Scalar exponent) -> ()  _foreach_pow_ prim=_foreach_pow_
_foreach_pow_.ScalarList(Tensor(a!)[] self, Scalar[] exponent) -> ()  _foreach_pow_ prim=_foreach_pow_
_foreach_reciprocal(Tensor[] self) -> Tensor[]  _foreach_reciprocal prim=_foreach_reciprocal
_foreach_reciprocal_(Tensor(a!)[] self) -> ()  _foreach_reciprocal_ prim=_foreach_reciprocal_
_foreach_sign(Tensor[] self) -> Tensor[]  _foreach_sign prim=_foreach_sign
_foreach_sign_(Tensor(a!)[] self) -> ()  _foreach_sign_ prim=_foreach_sign_
_foreach_sqrt(Tensor[] self) -> Tensor[]  _foreach_sqrt prim=_foreach_sqrt
_foreach_sqrt_(Tensor(a!)[] self) -> ()  _foreach_sqrt_ prim=_foreach_sqrt_
_foreach_sub.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]  _foreach_sub prim=_foreach_sub
_foreach_sub.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]  _foreach_sub prim=_foreach_sub
_foreach_sub.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]  _foreach_sub prim=_foreach_sub
_foreach_sub_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()  _foreach_sub_ prim=_foreach_sub_
_foreach_sub_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()  _foreach_sub_ prim=_foreach_sub_
_foreach_sub_.ScalarList(Tensor(a!)[] self, Scalar[] scalars) -> ()  _foreach_sub_ prim=_foreach_sub_
_foreach_zero_(Tensor(a!)[] self) -> ()  _foreach_zero_ prim=_foreach_zero_
# random (values follow ember's generator, not torch's stream)
bernoulli(Tensor self, *, Generator? generator=None) -> Tensor  bernoulli prim=bernoulli
bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor  bernoulli prim=bernoulli_scalar
bernoulli.Tensor(Tensor self, Tensor p, *, Generator? generator=None) -> Tensor  :bernoulli_tensor prim=bernoulli_p
normal.Tensor_float(Tensor mean, float std=1., *, Generator? generator=None) -> Tensor  normal prim=normal_tensor_float
normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor  normal prim=normal_float_tensor
normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor  normal prim=normal_tensor_tensor
normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  normal drop=layout,pin_memory
uniform(Tensor self, float from=0., float to=1., *, Generator? generator=None) -> Tensor  :uniform prim=uniform rn=low:from,high:to
exponential(Tensor self, float lambd=1., *, Generator? generator=None) -> Tensor  :exponential prim=exponential
cauchy(Tensor self, float median=0., float sigma=1., *, Generator? generator=None) -> Tensor  :cauchy prim=cauchy
log_normal(Tensor self, float mean=1., float std=2., *, Generator? generator=None) -> Tensor  :log_normal prim=log_normal
geometric(Tensor self, float p, *, Generator? generator=None) -> Tensor  :geometric prim=geometric
random.from(Tensor self, int from, int? to, *, Generator? generator=None) -> Tensor  :random_from prim=random_from_to rn=low:from,high:to
random.to(Tensor self, int to, *, Generator? generator=None) -> Tensor  :random_to prim=random_to rn=high:to
random(Tensor self, *, Generator? generator=None) -> Tensor  :random_ prim=random
normal_functional(Tensor self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor  :normal_functional prim=normal
multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor  multinomial prim=multinomial
poisson(Tensor self, Generator? generator=None) -> Tensor  poisson prim=poisson
binomial(Tensor count, Tensor prob, Generator? generator=None) -> Tensor  binomial prim=binomial
_standard_gamma(Tensor self, Generator? generator=None) -> Tensor  _standard_gamma prim=_standard_gamma
_standard_gamma_grad(Tensor self, Tensor output) -> Tensor  =_standard_gamma_grad
randperm(SymInt n, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  randperm prim=randperm drop=layout,pin_memory
randperm.generator(SymInt n, *, Generator? generator, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  randperm prim=randperm drop=layout,pin_memory
rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  rand drop=layout,pin_memory
rand.generator(SymInt[] size, *, Generator? generator, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  rand prim=uniform drop=layout,pin_memory
randn(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  randn drop=layout,pin_memory
randn.generator(SymInt[] size, *, Generator? generator, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  randn prim=normal drop=layout,pin_memory
randint(SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  randint drop=layout,pin_memory
randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  randint drop=layout,pin_memory
randint.low_generator(SymInt low, SymInt high, SymInt[] size, *, Generator? generator, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  randint prim=random_from_to drop=layout,pin_memory
# creation and the rest
empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor  empty prim=empty drop=layout,pin_memory,memory_format
empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor  empty_like drop=layout,pin_memory,memory_format
tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  tril_indices drop=layout,pin_memory
triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  triu_indices drop=layout,pin_memory
complex(Tensor real, Tensor imag) -> Tensor  =complex
frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)  frexp prim=frexp
histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor bin_edges)  histogram prim=histogram
histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, bool density=False) -> (Tensor hist, Tensor bin_edges)  histogram
repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor  =repeat_interleave
repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor  repeat_interleave
repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor  repeat_interleave
unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)  unique_consecutive prim=unique_consecutive
_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)  :unique2 prim=unique
_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor  =fft_c2c
_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor  =fft_r2c
_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor  =fft_c2r
select_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt index) -> Tensor  =select_backward
slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, SymInt end, SymInt step) -> Tensor  =slice_backward
adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)  :adaptive_max_pool2d prim=adaptive_max_pool2d
adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)  :adaptive_max_pool3d prim=adaptive_max_pool3d
adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor  nn.functional.adaptive_avg_pool3d prim=adaptive_avg_pool3d
_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor  nn.functional.adaptive_avg_pool2d prim=adaptive_avg_pool2d
avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor  nn.functional.avg_pool3d prim=avg_pool3d
max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> Tensor  nn.functional.max_pool3d
max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)  :max_pool2d_with_indices prim=max_pool2d
max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)  :max_pool3d_with_indices prim=max_pool3d
linalg_eig(Tensor self) -> (Tensor eigenvalues, Tensor eigenvectors)  linalg.eig prim=linalg_eig
linalg_eigvals(Tensor self) -> Tensor  linalg.eigvals prim=linalg_eigvals
linalg_eigvalsh(Tensor self, str UPLO="L") -> Tensor  linalg.eigvalsh prim=linalg_eigvalsh
linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)  linalg.lu prim=linalg_lu
linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor  linalg.pinv prim=linalg_pinv
linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (Tensor result, Tensor info)  linalg.solve_ex prim=linalg_solve_ex
linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False) -> Tensor  linalg.solve_triangular prim=linalg_solve_triangular
linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> (Tensor LD, Tensor pivots, Tensor info)  linalg.ldl_factor_ex prim=linalg_ldl_factor_ex
linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor  linalg.ldl_solve prim=linalg_ldl_solve
# in-place overloads (Tensor methods)
add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)  Tensor.add_
add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)  Tensor.add_
sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)  Tensor.sub_
sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)  Tensor.sub_
mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)  Tensor.mul_
mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)  Tensor.mul_
div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)  Tensor.div_
div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)  Tensor.div_
pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)  Tensor.pow_
copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)  Tensor.copy_
zero_(Tensor(a!) self) -> Tensor(a!)  Tensor.zero_
fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)  Tensor.fill_
fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)  Tensor.fill_
clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)  Tensor.clamp_
addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)  Tensor.addcmul_
addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)  Tensor.addcdiv_
lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)  Tensor.lerp_
abs_(Tensor(a!) self) -> Tensor(a!)  Tensor.abs_
neg_(Tensor(a!) self) -> Tensor(a!)  Tensor.neg_
exp_(Tensor(a!) self) -> Tensor(a!)  Tensor.exp_
sqrt_(Tensor(a!) self) -> Tensor(a!)  Tensor.sqrt_
relu_(Tensor(a!) self) -> Tensor(a!)  Tensor.relu_
sigmoid_(Tensor(a!) self) -> Tensor(a!)  Tensor.sigmoid_
tanh_(Tensor(a!) self) -> Tensor(a!)  Tensor.tanh_
logical_not_(Tensor(a!) self) -> Tensor(a!)  Tensor.logical_not_
bitwise_and_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)  Tensor.bitwise_and_
cumsum_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)  Tensor.cumsum_
masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)  Tensor.masked_fill_
index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)  :index_put_
uniform_(Tensor(a!) self, float from=0., float to=1., *, Generator? generator=None) -> Tensor(a!)  Tensor.uniform_
normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor(a!)  Tensor.normal_
bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)  Tensor.bernoulli_
hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)  nn.functional.hardtanh_
leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)  nn.functional.leaky_relu_
# more functional overloads graphs and libraries call
detach(Tensor(a) self) -> Tensor(a)  Tensor.detach
lift_fresh_copy(Tensor self) -> Tensor  clone
fill.Scalar(Tensor self, Scalar value) -> Tensor  full_like
fill.Tensor(Tensor self, Tensor value) -> Tensor  :fill_tensor
zero(Tensor self) -> Tensor  zeros_like
new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  Tensor.new_zeros drop=layout,pin_memory
new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  Tensor.new_ones drop=layout,pin_memory
new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  Tensor.new_empty drop=layout,pin_memory
new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor  Tensor.new_full drop=layout,pin_memory
expand_as(Tensor(a) self, Tensor other) -> Tensor(a)  Tensor.expand_as
view_as(Tensor(a) self, Tensor other) -> Tensor(a)  Tensor.view_as
reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)  Tensor.reshape_as
contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)  Tensor.contiguous
type_as(Tensor self, Tensor other) -> Tensor  Tensor.type_as
to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)  Tensor.to
to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)  Tensor.to
to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)  Tensor.to
rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor  rsub
rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor  rsub
clamp_min(Tensor self, Scalar min) -> Tensor  clamp_min
clamp_max(Tensor self, Scalar max) -> Tensor  clamp_max
square(Tensor self) -> Tensor  square
outer(Tensor self, Tensor vec2) -> Tensor  outer
kron(Tensor self, Tensor other) -> Tensor  kron
diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor  diag_embed
argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor  argsort
argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor  argsort
masked_select(Tensor self, Tensor mask) -> Tensor  masked_select
where(Tensor condition) -> Tensor[]  where
var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor  var
std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor  std
var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)  var_mean
std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)  std_mean
norm.Scalar(Tensor self, Scalar p=2) -> Tensor  norm
norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor  norm
cdist(Tensor x1, Tensor x2, float p=2., int? compute_mode=None) -> Tensor  cdist
cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor  cosine_similarity
pairwise_distance(Tensor x1, Tensor x2, float p=2., float eps=9.9999999999999995e-07, bool keepdim=False) -> Tensor  pairwise_distance
native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)  :native_batch_norm
batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor  :batch_norm
native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)  :native_dropout
mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor  :mse_loss
l1_loss(Tensor self, Tensor target, int reduction=1) -> Tensor  :l1_loss
smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.) -> Tensor  :smooth_l1_loss
huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.) -> Tensor  :huber_loss
binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1) -> Tensor  :binary_cross_entropy
binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, int reduction=1) -> Tensor  :binary_cross_entropy_with_logits
cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor  :cross_entropy_loss
upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor  :upsample_nearest2d
upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor  :upsample_bilinear2d
constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor  :constant_pad_nd
pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor  nn.functional.pad
group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enabled=True) -> Tensor  nn.functional.group_norm drop=cudnn_enabled
one_hot(Tensor self, int num_classes=-1) -> Tensor  nn.functional.one_hot
glu(Tensor self, int dim=-1) -> Tensor  nn.functional.glu
pixel_shuffle(Tensor self, int upscale_factor) -> Tensor  nn.functional.pixel_shuffle
pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor  nn.functional.pixel_unshuffle
channel_shuffle(Tensor self, SymInt groups) -> Tensor  nn.functional.channel_shuffle
grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor  :grid_sampler
affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor  nn.functional.affine_grid
"""
